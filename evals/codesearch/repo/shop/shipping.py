import datetime as dt

ZONES = {"local": 1, "national": 3, "international": 10}


def shipping_cost(weight_kg: float, zone: str) -> float:
    """运费：按重量和配送区域计算。"""
    base = {"local": 5.0, "national": 12.0, "international": 60.0}[zone]
    return base + max(0.0, weight_kg - 1.0) * 4.0


def estimate_delivery_date(ordered: dt.date, zone: str) -> dt.date:
    days = ZONES[zone]
    date = ordered
    while days:
        date += dt.timedelta(days=1)
        if date.weekday() < 5:  # no delivery at weekends
            days -= 1
    return date
