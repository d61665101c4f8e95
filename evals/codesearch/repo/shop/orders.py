import enum
import uuid

from shop.cart import Cart
from shop.inventory import Inventory
from shop.payments import charge_card, refund_payment


class OrderStatus(enum.Enum):
    PENDING = "pending"
    PAID = "paid"
    CANCELLED = "cancelled"
    SHIPPED = "shipped"


class Order:
    def __init__(self, user_id: str, cart: Cart) -> None:
        self.id = uuid.uuid4().hex
        self.user_id = user_id
        self.cart = cart
        self.status = OrderStatus.PENDING
        self.payment_id: str | None = None


def create_order(cart: Cart, user_id: str, inventory: Inventory, card: str) -> Order:
    """Reserve the stock of every item, charge the card, and return the paid order."""
    for item in cart.items:
        if not inventory.reserve_stock(item.sku, item.quantity):
            raise ValueError(f"out of stock: {item.sku}")
    order = Order(user_id, cart)
    order.payment_id = charge_card(card, cart.total_price("cn"))
    order.status = OrderStatus.PAID
    return order


def cancel_order(order: Order, inventory: Inventory) -> None:
    """取消订单：退款并释放库存。"""
    if order.status == OrderStatus.SHIPPED:
        raise ValueError("已发货的订单不能取消")
    if order.payment_id:
        refund_payment(order.payment_id)
    for item in order.cart.items:
        inventory.release_stock(item.sku, item.quantity)
    order.status = OrderStatus.CANCELLED
