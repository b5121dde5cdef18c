"""One coup of baccara chemin de fer: the bank, associates, bancos and stakes, then the settlements.

A state object with a ``verify_<verb>`` / ``apply_<verb>`` pair per event, as
the bataille round has; the cards are in ``drawing``, the hand that passes
between players in ``hand``. The checks each part raises are declared beside it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from ... import events as ev
from ...engine.checks import NoParams, Params, declare
from ...engine.format_checks import OUT_OF_CONTEXT
from ...engine.game import Events, Round
from ...engine.surveillance import add_bet
from ...values import Card, Owner, fmt_amount
from . import events as own
from .drawing import CDF_DEAL_ORDER, Drawing
from .hand import CDF_AUCTION, CDF_FIRST_HAND, CDF_HAND_PASSING

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.table import Table
    from .table import CdfTable

SCOPE = "chemin-de-fer"  # the checks declared below are this game's
CENT = Decimal("0.01")


class MinPlayers(Params):
    min_players: int = Field(gt=0)
    #: when « ne peut commencer ni continuer » is judged: at the coup's first card (a player who
    #: leaves before the deal leaves the coup short), or at ROUND begin
    at: Literal["first-card", "round-begin"] = "first-card"


class MinCards(Params):
    min_cards: int = Field(gt=0)


class BancoRules(Params):
    #: the share of the bank the ponte who calls "banco avec la table" stakes himself
    table_share: Decimal = Field(gt=0, le=1)


class LateStake(Params):
    #: until when the ponte who follows the banco may call it after "rien ne va plus" (art. 23:
    #: « pourvu qu'elles n'aient pas été prises en main »): until the ponte has taken the cards in hand
    #: (his first CALL or ABAT), or at any time of the coup
    follower_until: Literal["cards-taken", "any-time"] = "cards-taken"


class Associates(Params):
    max_associates: int = Field(ge=0)


CDF_MIN_PLAYERS = declare("cdf-min-players", MinPlayers, SCOPE)
CDF_BANK_ANNOUNCED = declare("cdf-bank-announced", NoParams, SCOPE)
CDF_BANK_MIN = declare("cdf-bank-min", NoParams, SCOPE)
CDF_BANK_LOWERED = declare("cdf-bank-lowered", NoParams, SCOPE)
CDF_STAKES_BANK = declare("cdf-stakes-bank", BancoRules, SCOPE)
CDF_ASSOCIATE = declare("cdf-associate", Associates, SCOPE)
CDF_BANCO_PRIORITY = declare("cdf-banco-priority", NoParams, SCOPE)
CDF_BANCO_SUIVI = declare("cdf-banco-suivi", NoParams, SCOPE)
CDF_CARDS_LARGEST = declare("cdf-cards-largest", NoParams, SCOPE)
CDF_LATE_STAKE = declare("cdf-late-stake", LateStake, SCOPE)
CDF_CARDS_LEFT = declare("cdf-cards-left", MinCards, SCOPE)
CDF_SETTLE = declare("cdf-settle", NoParams, SCOPE)
CDF_PAY_ORDER = declare("cdf-pay-order", NoParams, SCOPE)

#: the statistics' bet kinds: a stake against the bank, from the ponte's side and from the banker's
PONTE, BANKER = "coup ponte", "coup banker"
_BANCO_RANK = {"suivi": 0, "solo": 1, "table": 2}
_SETTLEMENT = {"ponte": "PAY", "banker": "COLLECT", "tie": "PUSH"}
#: the events the bank must be announced before (« le taux de la main [...] annoncé »): the bets
#: against it and the coup's close; a pass, an auction or an associate may come first
_BANK_DUE = frozenset(("BANCO", "STAKE", "NOMOREBETS", "PONTE"))
#: the events the banker's card, once he calls for it, is due before: the points announced, the settlements
_THIRD_DUE = frozenset(("POINT", "PAY", "COLLECT", "PUSH"))


class CdfRound(Drawing, Round):
    """One coup: bank, associates, bancos and stakes → rien ne va plus → cards → settlements."""

    def __init__(self, n: int, line: int, table: Table):
        super().__init__(n, line, table)
        self.rules: CdfTable = table.ext  # type: ignore[assignment]
        hand = self.rules.bank
        self.hand = hand
        self.stats = table.stats
        self.limits = table.limits
        self.bank: Decimal | None = None
        self.associates: list[tuple[Owner, Decimal]] = []
        self.bancos: list[tuple[Owner, str]] = []
        self.stakes: dict[Owner, Decimal] = {}
        self.stake_order: list[Owner] = []
        self.closed = False
        self.announced = False
        self.ponte: Owner | None = None
        self.ponte_mode: str | None = (
            None  # solo, suivi, table, follower (art. 12), or None (largest stake)
        )
        self.cards: dict[str, list[Card]] = {"ponte": [], "banker": []}
        self.dealt = 0
        self.abat: dict[str, bool] = {"ponte": False, "banker": False}
        self.calls: dict[str, bool | None] = {"ponte": None, "banker": None}
        self.tableau = False
        self.burned_third: dict[str, bool] = {"ponte": False, "banker": False}
        self.settled: dict[Owner, int] = {}
        self.last_order: int | None = None
        self.flagged: set[str] = set()
        self.started = False
        #: the banker goes on with the hand he held last coup (no HAND event, or how=suite)
        self.suite = hand.holder is not None and hand.coups_in_shoe > 0
        self.saw_hand = False
        self.taux = False  # the hand was taken back au taux this coup
        #: (ponte, his result) of each stake settled, for the statistics
        self.settlements: list[tuple[Owner, Decimal]] = []
        #: the banker's cards dealt too many at the deal, scored Baccara (art. 30); 0: none
        self.banker_base: int = 0
        self.void = False  # dealt with too few cards: not valid, its stakes are returned (art. 32)
        self.follower_faux = False  # the follower drew against the table (art. 12)
        #: a missing event is reported at the first line it was due (``report_owed``): the bank,
        #: due before the bets against it; the naturals, due shown after the four cards
        self.bank_missing = False  # reported
        self.naturals_due = False
        #: the banker called for a card not dealt yet: the first line it was due at (0: none came yet),
        #: and the settlements it leaves undecided, judged if it comes (early), dropped if it never does
        #: (the missing card is the finding). The ponte's card is not owed: the banker may refuse it (art. 31)
        self.thirds_due = False
        self.third_due_line = 0
        self.third_deferred: list[tuple[str, str, int]] = []
        self.owed = True  # the bank, until announced
        rule = self.rules.min_players
        if rule is not None and rule.at == "round-begin":
            self._check_players()

    def _check_players(self) -> None:
        rule = self.rules.min_players
        seated = len(self.table.seated)
        if rule is not None and seated < rule.min_players:
            self.flag(
                CDF_MIN_PLAYERS,
                f"coup {self.n} is played with {seated} seated player(s); "
                f"the rules require {rule.min_players}",
                expected=f"at least {rule.min_players} players seated (SEAT N in) for the coup",
            )

    def report_owed(self, e: ev.Event) -> None:
        """The bank not yet announced at a bet against it or the coup's close; a natural not shown
        at the first event after the four cards that is not an ABAT: each reported there, once."""
        verb = e.verb
        if self.bank is None and not self.bank_missing and verb in _BANK_DUE:
            self._bank_missing()
        if self.naturals_due and verb != "ABAT":
            self._naturals_due()
        if self.thirds_due and verb in _THIRD_DUE and not self.third_due_line:
            self.third_due_line = e.line  # where the banker's card was due, if it never comes
            self.flagger.keep()
        self.owed = (
            (self.bank is None and not self.bank_missing) or self.naturals_due or self.thirds_due
        )

    def third_came(self) -> None:
        """The banker's card came (or a burn cancelled his draw): the settlements before it were early."""
        self.thirds_due = False
        self.third_due_line = 0
        for message, expected, line in self.third_deferred:
            self.flag(CDF_SETTLE, message, expected=expected, line=line)
        self.third_deferred = []

    def _third_missing(self, line: int) -> None:
        """The coup ended with the banker's card called for and never dealt nor cancelled by a burn:
        reported where it was first due (the points announced or the first settlement, else ROUND end)."""
        self.thirds_due = False
        self.third_deferred = []
        if self.third_owed("banker"):
            self.flag(
                CDF_DEAL_ORDER,
                "the banker called for a card and got none",
                line=self.third_due_line or line,
                actual=None,
                expected="DEAL banker <card> after CALL banker card",
            )

    def _bank_missing(self) -> None:
        self.bank_missing = True
        self.flag(
            CDF_BANK_ANNOUNCED,
            "no bank announced for the coup before the bets against it",
            expected="BANK amount=<taux> before the bets",
            actual=None,
        )

    def _naturals_due(self) -> None:
        """The four cards are out: a natural is shown (ABAT) before anything else happens."""
        self.naturals_due = False
        for side in ("ponte", "banker"):
            self._natural_not_shown(side)

    def once(self, key: str) -> bool:
        if key in self.flagged:
            return False
        self.flagged.add(key)
        return True

    # -- the bank and the stakes ----------------------------------------------------------

    def verify_bank(self, e: own.Bank) -> None:
        b = self.hand
        if not self.suite and e.amount < self.limits.min:
            self.flag(
                CDF_BANK_MIN,
                f"bank of {fmt_amount(e.amount)}, below the table minimum {fmt_amount(self.limits.min)}",
                expected=f"BANK amount={fmt_amount(self.limits.min)} (or more)",
            )
        if (self.suite or self.taux) and b.last_bank is not None and b.last_result != "lost":
            floor = b.last_bank + b.last_net
            if e.amount < floor:
                how = "taken back au taux" if self.taux else "after the last coup"
                self.flag(
                    CDF_BANK_LOWERED,
                    f"bank lowered to {fmt_amount(e.amount)}; the hand holds "
                    f"{fmt_amount(floor)} {how}",
                    expected=f"BANK amount={fmt_amount(floor)} (or more)",
                )
        auction = self.rules.auction
        if (
            b.award_price is not None
            and auction is not None
            and auction.bank_at_least_price
            and e.amount < b.award_price
        ):
            self.flag(
                CDF_AUCTION,
                f"bank of {fmt_amount(e.amount)} announced by the awardee, below the price of "
                f"{fmt_amount(b.award_price)} he bid for the hand",
                expected=f"BANK amount={fmt_amount(b.award_price)} (or more)",
            )
        if self.rules.associate is not None:  # associates announced before the bank (art. 6)
            for owner, share in self.associates:
                self._check_share(owner, share, e.amount)

    def _check_share(self, owner: Owner, share: Decimal, bank: Decimal) -> None:
        if share > bank - share:
            self.flag(
                CDF_ASSOCIATE,
                f"associate {owner}'s share {fmt_amount(share)} exceeds the banker's own "
                f"{fmt_amount(bank - share)}",
                expected=f"ASSOCIATE by={owner} amount={fmt_amount(bank / 2)} (at most)",
            )

    def apply_bank(self, e: own.Bank) -> None:
        self.bank = e.amount

    def verify_associate(self, e: own.Associate) -> None:
        b = self.hand
        rule = self.rules.associate
        if rule is not None:
            if self.suite:
                self.flag(
                    CDF_ASSOCIATE,
                    f"{e.by} joins as associate of a hand already in play",
                    expected="ASSOCIATE only when the hand is taken, before its first coup",
                )
            elif len(b.associates) + 1 > rule.max_associates:
                self.flag(
                    CDF_ASSOCIATE,
                    f"{e.by} is associate number {len(b.associates) + 1}; "
                    f"the banker may take {rule.max_associates}",
                    expected=f"at most {rule.max_associates} ASSOCIATE for a hand",
                )
            if self.bank is not None:
                self._check_share(e.by, e.amount, self.bank)

    def apply_associate(self, e: own.Associate) -> None:
        self.hand.associates.append(e.by)
        self.associates.append((e.by, e.amount))

    def verify_banco(self, e: own.Banco) -> None:
        b = self.hand
        follower = e.mode == "suivi" and e.by == b.prev_banco  # art. 23's exception
        if self.closed and not follower:
            self.flag(
                CDF_LATE_STAKE,
                f'banco by {e.by} after "rien ne va plus"',
                expected="BANCO before NOMOREBETS",
            )
        elif (
            self.closed
            and self.rules.late_stake is not None
            and self.rules.late_stake.follower_until == "cards-taken"
            and (self.calls["ponte"] is not None or self.abat["ponte"])
        ):
            self.flag(
                CDF_LATE_STAKE,
                f"banco suivi by {e.by} after the cards were taken in hand (art. 23: « pourvu "
                "qu'elles n'aient pas été prises en main »)",
                expected="BANCO mode=suivi before the ponte's CALL or ABAT",
            )
        if e.mode == "suivi" and e.by not in (b.prev_banco, b.prev_sole_staker):
            self.flag(
                CDF_BANCO_SUIVI,
                f"{e.by} calls banco suivi without having held or alone staked the last coup",
                expected=f"BANCO by={e.by} mode=solo",
            )

    def apply_banco(self, e: own.Banco) -> None:
        self.bancos.append((e.by, e.mode))

    def verify_stake(self, e: own.Stake) -> None:
        if self.closed:
            self.flag(
                CDF_LATE_STAKE,
                f'stake by {e.by} after "rien ne va plus"',
                expected="STAKE before NOMOREBETS",
            )

    def apply_stake(self, e: own.Stake) -> None:
        if e.by not in self.stakes:
            self.stake_order.append(e.by)
        self.stakes[e.by] = self.stakes.get(e.by, Decimal(0)) + e.amount

    def verify_nomorebets(self, e: ev.NoMoreBets) -> None:
        if self.announced:
            self.flag(
                OUT_OF_CONTEXT,
                '"rien ne va plus" announced twice',
                expected="one NOMOREBETS per coup",
            )

    def apply_nomorebets(self, e: ev.NoMoreBets) -> None:
        self.closed = self.announced = True

    # -- who holds the cards for the pontes ------------------------------------------------

    def _place(self, owner: Owner, index: int) -> tuple[int, int]:
        """Order from the banker's right: seated by place, then standing in the order they played."""
        if owner.kind == "seat" and owner.seat is not None:
            banker = self.hand.holder_seat or 0
            return (0, (owner.seat - banker - 1) % self.table.seats)
        return (1, index)

    def _banco_first(self) -> tuple[Owner, str]:
        """The banco with priority (art. 23): suivi, then solo, then avec la table; by place. Among the
        solo bancos, the ponte of the last coup's banco avec la table comes first (art. 21)."""
        table = self.hand.prev_table_banco
        _, best, mode = min(
            (
                (((_BANCO_RANK[m] - (m == "solo" and o == table) * 0.5), *self._place(o, i)), o, m)
                for i, (o, m) in enumerate(self.bancos)
            ),
            key=lambda r: r[0],
        )
        return best, mode

    def verify_ponte(self, e: own.Ponte) -> None:
        if self.bancos:
            best, mode = self._banco_first()
            if e.by != best:
                self.flag(
                    CDF_BANCO_PRIORITY,
                    f"cards held by {e.by}; the banco with priority is {best}'s ({mode})",
                    expected=f"PONTE by={best}",
                )
            return
        seated = {o: a for o, a in self.stakes.items() if o.kind == "seat" and a > 0}
        pool = seated or {o: a for o, a in self.stakes.items() if a > 0}
        if pool and self._follower_keeps_cards(e.by):
            pool = {}
        if pool:
            top = max(pool.values())
            best = min(
                (o for o, a in pool.items() if a == top),
                key=lambda o: self._place(o, self.stake_order.index(o)),
            )
            if e.by != best:
                self.flag(
                    CDF_CARDS_LARGEST,
                    f"cards held by {e.by}; the largest seated stake is {best}'s "
                    f"({fmt_amount(top)})",
                    expected=f"PONTE by={best}",
                )

    def apply_ponte(self, e: own.Ponte) -> None:
        if self.bancos:
            chosen = next((m for o, m in self.bancos if o == e.by), None)
            self.ponte_mode = chosen or self._banco_first()[1]
        else:  # art. 12: the follower who keeps the cards is free of his draws
            self.ponte_mode = "follower" if self._follower_keeps_cards(e.by) else None
        self.ponte = e.by

    def bank_amount(self) -> Decimal | None:
        """The bank announced, or else what it holds after the last coup (art. 12)."""
        if self.bank is not None:
            return self.bank
        b = self.hand
        if b.last_bank is None or b.last_result == "lost":
            return None
        return b.last_bank + b.last_net

    def _follower_keeps_cards(self, who: Owner) -> bool:
        """Art. 12: when the bank is raised, the ponte who follows the banco may hold the cards."""
        b = self.hand
        if (
            who != b.prev_banco
            or who not in self.stakes
            or self.bank is None
            or b.last_bank is None
        ):
            return False
        return self.bank > b.last_bank + b.last_net

    def in_play(self) -> dict[Owner, Decimal]:
        """The stakes the coup decides, once the bets are closed."""
        bank = self.bank_amount() or Decimal(0)
        if self.bancos:
            holder = self.ponte or self.bancos[0][0]
            mode = self.ponte_mode or next((m for o, m in self.bancos if o == holder), "solo")
            if mode in ("solo", "suivi"):
                out = {o: a for o, a in self.stakes.items() if a > 0 and o != holder}
                out[holder] = bank
                return out
            rule = self.rules.stakes_bank
            share = rule.table_share if rule is not None else Decimal("0.5")
            out = {o: a for o, a in self.stakes.items() if a > 0 and o != holder}
            out[holder] = (bank * share).quantize(CENT) + self.stakes.get(holder, Decimal(0))
            return out
        return {o: a for o, a in self.stakes.items() if a > 0}

    def _in_play_holds(self, owner: Owner) -> bool:
        """``owner in self.in_play()``, without building the stakes."""
        if self.bancos and owner == (self.ponte or self.bancos[0][0]):
            return True
        return self.stakes.get(owner, Decimal(0)) > 0

    def _check_cover(self) -> None:
        bank = self.bank_amount()
        if bank is None:
            return
        self._check_table_half(bank)
        total = sum(self.in_play().values(), Decimal(0))
        if total > bank:
            self.flag(
                CDF_STAKES_BANK,
                f"stakes of {fmt_amount(total)} against a bank of {fmt_amount(bank)}",
                expected=f"at most {fmt_amount(bank)} staked",
            )

    def _check_table_half(self, bank: Decimal) -> None:
        """Art. 21, its « au moins » crossed out: the ponte of a banco avec la table goes for half
        the bank (``table_share``), no more; a STAKE of his own beside his banco is more."""
        if not self.bancos:
            return
        holder = self.ponte or self.bancos[0][0]
        mode = self.ponte_mode or next((m for o, m in self.bancos if o == holder), "solo")
        more = self.stakes.get(holder, Decimal(0))
        if mode != "table" or more <= 0:
            return
        rule = self.rules.stakes_bank
        share = (bank * (rule.table_share if rule is not None else Decimal("0.5"))).quantize(CENT)
        self.flag(
            CDF_STAKES_BANK,
            f"{holder} calls banco avec la table and stakes {fmt_amount(share + more)}: "
            f"{fmt_amount(more)} beyond his half of {fmt_amount(bank)}",
            expected=f"{holder} goes for {fmt_amount(share)}, no more; the others make up the rest",
        )

    def _first_card(self) -> None:
        """At the coup's first card: a banker, the bets closed, a bank, cards enough, stakes covered."""
        self.started = True
        b = self.hand
        b.must_deal = False
        b.award_price = None
        rule = self.rules.min_players
        if rule is not None and rule.at == "first-card":
            self._check_players()
        if b.holder is None:
            self.flag(
                OUT_OF_CONTEXT,
                "a coup dealt with no banker (HAND)",
                expected="HAND seat=N before the first DEAL",
            )
        elif not self.saw_hand and b.coups_in_shoe == 0:
            lowest = min(self.table.seated) if self.table.seated else None
            self.flag(
                CDF_FIRST_HAND,
                f"the first coup of the shoe is dealt by the last shoe's banker ({b.holder}); "
                f"the first hand belongs to the first seated player at the employee's right (seat {lowest})",
                expected=f"HAND seat={lowest} how=first",
            )
        elif not self.saw_hand and (b.last_result == "lost" or b.passed_by is not None):
            self.flag(
                CDF_HAND_PASSING,
                "the banker goes on with a hand he "
                + ("passed" if b.passed_by is not None else "lost"),
                expected="HAND seat=N how=...",
            )
        if not self.closed:
            self.cards_before_close('the cards are dealt before "rien ne va plus"')
            self.closed = True
        if self.bank is None and not self.bank_missing:
            self.bank_missing = True
            self.flag(
                CDF_BANK_ANNOUNCED,
                "coup dealt with no bank announced",
                expected="BANK amount=<taux>",
            )
        shoe = self.table.shoe
        cards_rule = self.rules.cards_left
        if (
            shoe is not None
            and cards_rule is not None
            and shoe.size - shoe.drawn < cards_rule.min_cards
        ):
            self.flag(
                CDF_CARDS_LEFT,
                f"coup dealt with {shoe.size - shoe.drawn} cards left in the shoe; "
                f"the rules require {cards_rule.min_cards}",
                expected=f"SHOE new: at least {cards_rule.min_cards} cards left for a coup",
            )
            self.void = True
        self._check_cover()

    # -- settlement ----------------------------------------------------------------------------

    def _order_of(self, owner: Owner) -> int:
        index = (
            self.stake_order.index(owner) if owner in self.stake_order else len(self.stake_order)
        )
        key = self._place(owner, index)
        return key[0] * 1000 + key[1]

    def verify_settle(self, e: ev.Pay | ev.Collect | ev.Push) -> None:
        if e.by is None:
            self.flag(
                OUT_OF_CONTEXT,
                f"{e.verb} seat= spot= is a bataille settlement",
                expected=f"{e.verb} by=OWNER",
            )
            return
        stakes = self.in_play()
        if e.by not in stakes:
            self.flag(
                CDF_SETTLE,
                f"{e.verb} for {e.by}, who has no stake in play",
                expected=f"no {e.verb} for {e.by}",
            )
            return
        if e.by in self.settled:
            self.flag(
                CDF_SETTLE,
                f"{e.by} settled twice (first at line {self.settled[e.by]})",
                expected=f"one settlement of {e.by} (line {self.settled[e.by]})",
            )
            return
        penalised = self.rules.penalised  # art. 8: « ramassés les premiers et payés les derniers »
        if (
            self.last_order is not None
            and self._order_of(e.by) < self.last_order
            and e.by not in penalised
        ):
            self.flag(
                CDF_PAY_ORDER,
                f"{e.by} settled after a place further from the banker's right",
                expected="settlements in the order of the places from the banker's right",
            )
        if not self.decided():
            message, expected = (
                f"{e.by} settled before the coup was decided",
                f"{e.verb} by={e.by} once the coup is decided",
            )
            if (
                self.thirds_due
            ):  # waits on the banker's card: early if it comes, not judged if it never does
                self.third_deferred.append((message, expected, e.line))
                self.flagger.keep()
            else:
                self.flag(CDF_SETTLE, message, expected=expected)
            return
        stake = stakes[e.by]
        if self.void:
            if e.verb != "PUSH":
                self.flag(
                    CDF_SETTLE,
                    f"{e.by}: {e.verb} {fmt_amount(e.amount)} on a coup dealt with too few cards "
                    "(art. 32): the coup is not valid and the stake is returned",
                    expected=f"PUSH by={e.by}",
                )
            return
        amount = getattr(e, "amount", None)
        p, b = self.hand_points("ponte"), self.hand_points("banker")
        how = ""
        if (
            self.follower_faux and e.by != self.ponte
        ):  # art. 12: « le tableau sera appliqué » for the others
            tableau = self.tableau_points()
            if tableau is None:  # the log cannot tell the tableau's coup: only the amount is judged
                if amount is not None and amount != stake:
                    self.flag(
                        CDF_SETTLE,
                        f"{e.by}: {e.verb} {fmt_amount(amount)} on a stake of {fmt_amount(stake)}",
                        expected=f"{e.verb} by={e.by} amount={fmt_amount(stake)}",
                    )
                return
            (p, b), how = (
                tableau,
                " as the tableau plays it after the follower's faux tirage (art. 12)",
            )
        result = "ponte" if p > b else "banker" if b > p else "tie"
        verb = _SETTLEMENT[result]
        if e.verb != verb or (verb != "PUSH" and amount != stake):
            want = f"{verb} by={e.by}" + (f" amount={fmt_amount(stake)}" if verb != "PUSH" else "")
            self.flag(
                CDF_SETTLE,
                f"{e.by}: {e.verb}{' ' + fmt_amount(amount) if amount is not None else ''}; "
                f"the {'ponte wins' if result == 'ponte' else 'banker wins' if result == 'banker' else 'coup is a tie'} "
                f"({p} to {b}){how} on a stake of {fmt_amount(stake)}",
                expected=want,
            )

    verify_pay = verify_collect = verify_push = verify_settle

    def apply_settle(self, e: ev.Pay | ev.Collect | ev.Push) -> None:
        """The money the log shows moving, right or wrong (the findings judge it). The first
        settlement of a stake in play counts, and sets the order the next must follow."""
        verb = e.verb
        if verb == "PAY":
            self.stats.paid += e.amount  # type: ignore[union-attr]
        elif verb == "COLLECT":
            self.stats.collected += e.amount  # type: ignore[union-attr]
        by = e.by
        if by is None or by in self.settled or not self._in_play_holds(by):
            return
        self.settled[by] = e.line
        if by not in self.rules.penalised:  # his place in the order is the art. 8 penalty's
            self.last_order = self._order_of(by)
        self.settlements.append(
            (by, e.amount if verb == "PAY" else -e.amount if verb == "COLLECT" else Decimal(0))  # type: ignore[union-attr]  # a PUSH: 0
        )

    apply_pay = apply_collect = apply_push = apply_settle

    def finish(self, line: int) -> None:
        if not self.started:
            return
        for side in ("ponte", "banker"):
            self._natural_not_shown(side)
        if self.thirds_due:
            if self.third_owed("banker"):
                self._third_missing(line)
            else:
                self.third_came()
        if self.decided():
            for owner in sorted(self.in_play(), key=str):
                if owner not in self.settled:
                    self.flag(
                        CDF_SETTLE,
                        f"{owner}'s stake of {fmt_amount(self.in_play()[owner])} was never settled",
                        line=line,
                        actual=None,
                        expected=f"PAY, COLLECT or PUSH by={owner} before ROUND {self.n} end",
                    )
        self._record()

    def _record(self) -> None:
        """What the coup leaves to the next: the bank's result, who held the banco, the drop."""
        b = self.hand
        stakes = self.in_play()
        total = sum(stakes.values(), Decimal(0))
        self.stats.drop += total
        result = self.outcome() if self.decided() and not self.void else "tie"
        b.last_result = {"ponte": "lost", "banker": "won", "tie": "push"}[result]
        b.last_bank = self.bank if self.bank is not None else b.last_bank
        if self.follower_faux:  # the stakes were settled on two coups (art. 12): what the log moved
            b.last_net = -sum((r for _, r in self.settlements), Decimal(0))
        else:
            b.last_net = (
                total if result == "banker" else -total if result == "ponte" else Decimal(0)
            )
        b.prev_banco = self.ponte if self.bancos else None
        b.prev_table_banco = self.ponte if self.bancos and self.ponte_mode == "table" else None
        positive = [o for o, a in self.stakes.items() if a > 0]
        b.prev_sole_staker = positive[0] if not self.bancos and len(positive) == 1 else None
        b.coups_in_shoe += 1
        if self.table.surveillance is not None:
            self.table.surveillance.add_round(
                self.table.dealer, self._surveyed_players(stakes), None
            )

    def _surveyed_players(self, stakes: dict[Owner, Decimal]) -> dict:
        """The coup's settled stakes for the statistics, by player and side: the ponte's result, and its
        opposite for the banker who holds the hand (his associates' shares with it)."""
        seated = self.table.seated
        holder = self.hand.holder
        banker = None if holder is None else self._player(holder, seated)
        players: dict = {}
        for by, result in self.settlements:
            stake = stakes.get(by)
            if stake is None:
                continue
            ponte = self._player(by, seated)
            if ponte is not None:
                add_bet(players, ("ponte", ponte), PONTE, stake, result)
            if banker is not None:
                add_bet(players, ("banker", banker), BANKER, stake, -result)
        return players

    @staticmethod
    def _player(owner: Owner, seated: dict[int, str | None]) -> str | None:
        return owner.id if owner.kind == "standing" else seated.get(int(owner.id))

    #: the events it plays: verb -> (verify, apply)
    EVENTS: ClassVar[dict[str, Events]] = {
        **Drawing.EVENTS,
        "BANK": (verify_bank, apply_bank),
        "ASSOCIATE": (verify_associate, apply_associate),
        "BANCO": (verify_banco, apply_banco),
        "STAKE": (verify_stake, apply_stake),
        "NOMOREBETS": (verify_nomorebets, apply_nomorebets),
        "PONTE": (verify_ponte, apply_ponte),
        "PAY": (verify_settle, apply_settle),
        "COLLECT": (verify_settle, apply_settle),
        "PUSH": (verify_settle, apply_settle),
    }
