import smtplib
from email.message import EmailMessage

TEMPLATE = "您好 {name}，您的订单 {order_id} 已确认，预计 {days} 天内送达。"


def send_order_confirmation(smtp_host: str, to: str, name: str, order_id: str, days: int) -> None:
    message = EmailMessage()
    message["Subject"] = f"订单确认 {order_id}"
    message["To"] = to
    message.set_content(TEMPLATE.format(name=name, order_id=order_id, days=days))
    with smtplib.SMTP(smtp_host) as server:
        server.send_message(message)
