import re


def tokenize(text: str) -> list[str]:
    return [word.lower() for word in re.findall(r"\w+", text)]


def rank_products(query: str, products: dict[str, str]) -> list[str]:
    """Order product ids by how many query words their names contain."""
    words = set(tokenize(query))
    scored = [(len(words & set(tokenize(name))), pid) for pid, name in products.items()]
    return [pid for score, pid in sorted(scored, reverse=True) if score > 0]
