"""A card's parity: A = 1, J = 11, Q = 12, K = 13."""

VALUE = {"A": 1, "J": 11, "Q": 12, "K": 13, **{str(n): n for n in range(2, 11)}}


def parity(rank: str) -> str:
    return "pair" if VALUE[rank] % 2 == 0 else "impair"
