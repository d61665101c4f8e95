"""Prices, taxes and currencies."""

TAX_RATES = {"cn": 0.13, "us": 0.07, "de": 0.19}


def compute_tax(amount: float, region: str) -> float:
    """Sales tax (VAT) for a net amount in a region."""
    return round(amount * TAX_RATES.get(region, 0.0), 2)


def convert_currency(amount: float, rate: float) -> float:
    # 按汇率把人民币金额换算成外币
    return round(amount * rate, 2)


def round_price(value: float) -> float:
    """Prices end in .99 like the shop's catalogue."""
    return int(value) + 0.99
