"""用户认证：密码哈希、登录和访问令牌。"""

import hashlib
import hmac
import os
import time

SECRET = os.environ.get("SHOP_SECRET", "dev")


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 100_000)
    return salt.hex() + ":" + digest.hex()


def verify_password(password: str, stored: str) -> bool:
    salt, _ = stored.split(":")
    return hmac.compare_digest(hash_password(password, bytes.fromhex(salt)), stored)


def issue_token(user_id: str, ttl_seconds: int = 3600) -> str:
    """Sign a session token that expires after ttl_seconds."""
    expires = int(time.time()) + ttl_seconds
    payload = f"{user_id}.{expires}"
    signature = hmac.new(SECRET.encode(), payload.encode(), "sha256").hexdigest()
    return f"{payload}.{signature}"


def login(users: dict[str, str], user_id: str, password: str) -> str | None:
    stored = users.get(user_id)
    if stored is None or not verify_password(password, stored):
        return None
    return issue_token(user_id)
