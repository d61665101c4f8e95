import logging

log = logging.getLogger(__name__)


class Inventory:
    """库存管理：预留、释放，以及低库存提醒。"""

    def __init__(self, stock: dict[str, int]) -> None:
        self.stock = dict(stock)
        self.reserved: dict[str, int] = {}

    def reserve_stock(self, sku: str, quantity: int) -> bool:
        if self.stock.get(sku, 0) - self.reserved.get(sku, 0) < quantity:
            return False
        self.reserved[sku] = self.reserved.get(sku, 0) + quantity
        return True

    def release_stock(self, sku: str, quantity: int) -> None:
        self.reserved[sku] = max(0, self.reserved.get(sku, 0) - quantity)

    def low_stock_alert(self, threshold: int = 5) -> list[str]:
        low = [sku for sku, count in self.stock.items() if count < threshold]
        if low:
            log.warning("low stock: %s", ", ".join(low))
        return low
