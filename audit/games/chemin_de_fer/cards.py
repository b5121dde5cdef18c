"""A card's points at baccara."""

#: Baccara points: A = 1, 10 and faces = 0.
BACCARA_POINTS = {
    "A": 1,
    "K": 0,
    "Q": 0,
    "J": 0,
    "10": 0,
    "9": 9,
    "8": 8,
    "7": 7,
    "6": 6,
    "5": 5,
    "4": 4,
    "3": 3,
    "2": 2,
}
