import time
from collections import OrderedDict


class LRUCache:
    """最近最少使用缓存，条目超过有效期后失效。"""

    def __init__(self, capacity: int, ttl: float) -> None:
        self.capacity = capacity
        self.ttl = ttl
        self.entries: OrderedDict[str, tuple[float, object]] = OrderedDict()

    def get(self, key: str) -> object | None:
        found = self.entries.get(key)
        if found is None:
            return None
        stored_at, value = found
        if time.monotonic() - stored_at > self.ttl:
            del self.entries[key]
            return None
        self.entries.move_to_end(key)
        return value

    def put(self, key: str, value: object) -> None:
        self.entries[key] = (time.monotonic(), value)
        self.entries.move_to_end(key)
        while len(self.entries) > self.capacity:
            self.entries.popitem(last=False)
