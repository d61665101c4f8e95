from dataclasses import dataclass, field

from shop.pricing import compute_tax


@dataclass
class CartItem:
    sku: str
    quantity: int
    unit_price: float


@dataclass
class Cart:
    """购物车：保存用户选中的商品，计算总价。"""

    items: list[CartItem] = field(default_factory=list)
    coupon: str | None = None

    def add_item(self, sku: str, quantity: int, unit_price: float) -> None:
        for item in self.items:
            if item.sku == sku:
                item.quantity += quantity
                return
        self.items.append(CartItem(sku, quantity, unit_price))

    def remove_item(self, sku: str) -> None:
        self.items = [item for item in self.items if item.sku != sku]

    def subtotal(self) -> float:
        return sum(item.quantity * item.unit_price for item in self.items)

    def apply_coupon(self, code: str) -> float:
        """使用优惠券：满减或折扣，返回优惠金额。"""
        self.coupon = code
        if code.startswith("OFF"):
            return min(self.subtotal(), float(code[3:]))
        if code.startswith("PCT"):
            return self.subtotal() * float(code[3:]) / 100
        return 0.0

    def total_price(self, region: str) -> float:
        discount = self.apply_coupon(self.coupon) if self.coupon else 0.0
        net = self.subtotal() - discount
        return net + compute_tax(net, region)
