import random
import time


class PaymentError(Exception):
    pass


def retry_with_backoff(action, attempts: int = 3, base_delay: float = 0.5):
    """Run `action`, retrying failures with exponential backoff and jitter."""
    for attempt in range(attempts):
        try:
            return action()
        except PaymentError:
            if attempt == attempts - 1:
                raise
            time.sleep(base_delay * (2**attempt) + random.random() / 10)


def charge_card(card_number: str, amount: float) -> str:
    """Charge a credit card through the payment gateway; returns the payment id."""
    if len(card_number) < 12:
        raise PaymentError("invalid card")
    return retry_with_backoff(lambda: f"pay-{card_number[-4:]}-{int(amount * 100)}")


def refund_payment(payment_id: str) -> None:
    # 退款：调用支付网关撤销这笔交易
    if not payment_id.startswith("pay-"):
        raise PaymentError("unknown payment")
