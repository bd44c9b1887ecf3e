"""Chaos Marauders: the checks, with every number read from the entries named next to it."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from ..core import DataFileError, Game, GameData, Refusals, RulesError, check

REFUSALS = Refusals(
    {
        "line-too-long": "a line has at most {spaces} spaces",
        "duplicate-cards": "duplicate card(s): {cards}",
        "one-standard-one-musician": "{standards} Standard and {musicians} Musician per line",
        "card-left-of-standard": "a card stands left of the Standard",
        "card-right-of-musician": "a card stands right of the Musician",
        "completed-line-length": "a completed line has {low}-{high} cards, not {cards}",
        "card-without-points": "'{card}' is not in the victory-point table; cards there: {cards}",
        "cards-or-strength": "{side}: give the line's cards or its attack_strength",
        "rating-out-of-range": (
            "{side}: {card} has attack rating {rating}; ratings run from {low} to {high} (leave it out for a card without a rating)"
        ),
        "strength-not-the-sum": "{side}: attack_strength {given} is not the sum of its cards' ratings ({total})",
        "completed-lines-out-of-range": "a tribe has 1 to {most} completed lines, not {lines}",
        "lines-of-a-tribe": "a tribe has {lines} lines, not {given}",
        "too-many-in-a-line": "line {line} holds {count} {kind} cards; a line holds at most {most}",
        "same-symbol-limit": "a tribe may not hold more than {most} cards with the same symbol: {symbols}",
        "turn-already-over": "draw {number}: the turn ended at draw {previous}",
        "not-this-line": "draw {number}: {card} may go only in line(s) {lines}",
        "no-free-space": "draw {number}: give a free space (1-{spaces}) of line {line}",
        "draw-breaks-the-line": "draw {number}: {problems}",
        "first-twice": "only one tribe completes three lines first, not {tribes}",
        "winner-line-invalid": "line {line} of the winner: {problems}",
        "trophy-already-placed": "trophy {number}: {card} was already placed; the winner may take {cards}",
        "trophy-not-takeable": "trophy {number}: {card} is not a card of the broken line that the roll leaves; the winner may take {cards}",
        "trophy-space-taken": "trophy {number}: space {space} of line {line} is not free",
        "trophy-breaks-the-line": "trophy {number}: {problems}",
        "trophy-symbol-limit": "trophy {number}: a tribe may not hold {held} cards with the symbol {card}",
    }
)

Sheet = list[list[str | None]]  # a tribe's lines, each its spaces left to right (null: a free space)


Frame = Literal["purple", "grey", "blue", "red", "green"]


class ScoredLine(TypedDict):
    """A line to score (score_input.lines, standings_input.tribes.*.lines)."""

    position: NotRequired[int]
    completed: bool
    cards: int
    scoring_cards: NotRequired[list[str]]
    war_machines_with_crew: NotRequired[list[str]]
    war_machines_without_crew: NotRequired[list[str]]


class Tribe(TypedDict):
    """A tribe at the end of the game (standings_input.tribes.*)."""

    completed_three_lines_first: NotRequired[bool]
    lines: list[ScoredLine]


class LineCard(TypedDict):
    """A card of an attacking or attacked line (attack_input.attacker.cards, attack_input.defender.cards)."""

    card: NotRequired[str]
    frame: Frame
    attack_rating: NotRequired[int | None]


class Defender(TypedDict):
    """The attacked line (attack_input.defender)."""

    completed: bool
    tribe: NotRequired[str]
    cards: NotRequired[list[LineCard]]
    attack_strength: NotRequired[int]


class Attacker(Defender):
    """The attacking line (attack_input.attacker): a line as the defender's, and what the attacker may also say."""

    attacks_made: NotRequired[int]
    just_completed: NotRequired[bool]
    completed_by_trophy: NotRequired[bool]
    completed_with_end_of_turn_card: NotRequired[bool]
    completed_lines: NotRequired[int]


class Draw(TypedDict):
    """A card drawn in the turn, and where it goes (turn_input.draws)."""

    card: str
    green: NotRequired[bool]
    line: NotRequired[int]
    space: NotRequired[int]


class BrokenCard(TypedDict):
    """A card of the broken battle line (trophies_input.broken_line)."""

    card: str
    frame: str


class Placement(TypedDict):
    """A trophy placed on a free space (trophies_input.placements)."""

    card: str
    line: int
    space: int


def _reason(code: str, rule: str, message: str) -> dict[str, str]:
    """A reason an attack is not allowed, as the output lists it."""
    return {"code": code, "rule": rule, "message": message}


def _vp_table(data: GameData) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k != "item"} for row in data.table("marauders/victory-point-table")]


def _attack_discards(data: GameData) -> dict[str, list[str]]:
    """Die face -> frame colours discarded from the broken line, from params <face>_discards."""
    return {
        face: [c.strip() for c in data.param("marauders/attack-roll", f"{face}_discards").split(",") if c.strip()]
        for face in ("orc_eye", "mark_of_chaos")
    }


# die face -> (result, whose line is broken, who wins and may take the other cards)  from marauders/attack-roll
OUTCOMES = {"orc_eye": ("success", "defender", "attacker"), "mark_of_chaos": ("failure", "attacker", "defender")}


class Rules(Game):
    def __init__(self, data: GameData):
        super().__init__(data)
        self.STANDARDS_RULE = data.ref("marauders/standards-and-musicians")
        self.PLACEMENT_RULE = data.ref("marauders/card-placement")
        self.DUPLICATE_ENDS_TURN = data.ref("marauders/clarify-placed-duplicate-ends-turn")
        self.END_OF_TURN_RULE = data.ref("marauders/end-of-turn-cards")
        self.FOURTH_DUPLICATE_RULE = data.ref("marauders/fourth-duplicate")
        self.LINE_MIN = data.param("marauders/completed-line", "completed_line_min_cards")  # from marauders/completed-line
        self.LINE_MAX = data.param("marauders/completed-line", "completed_line_max_cards")
        self.VP_TABLE = _vp_table(data)  # from marauders/victory-point-table
        self.LENGTH_BONUS = [(r["cards_min"], r["cards_max"], r["vp"]) for r in self.VP_TABLE if r["rule"] == "completed_line_length"]
        self.CARD_VP = {r["card"].replace("-", "_"): r["vp"] for r in self.VP_TABLE if r["rule"] == "card"}
        vp_of = {r["rule"]: r["vp"] for r in self.VP_TABLE if r["rule"] not in ("completed_line_length", "card")}  # one row each
        self.PER_CARD = vp_of["per_card"]
        self.WITH_CREW = vp_of["war_machine_with_crew"]
        self.WITHOUT_CREW = vp_of["war_machine_without_crew"]
        self.FIRST_THREE = vp_of["first_to_complete_three_lines"]
        self.SHORT_LINE = data.ref("marauders/clarify-four-card-line")
        self.RATING_MIN = data.param("marauders/attack-rating", "attack_rating_min")  # from marauders/attack-rating
        self.RATING_MAX = data.param("marauders/attack-rating", "attack_rating_max")
        self.ATTACKS_PER_LINE = data.param("marauders/attack-conditions", "attacks_per_completed_line")  # from marauders/attack-conditions
        self.STRICTLY_STRONGER = data.param("marauders/attack-conditions", "attacker_must_be_strictly_stronger")
        self.LINES_TO_END = data.param("marauders/end-of-game", "completed_lines_to_end")  # from marauders/end-of-game
        self.DISCARDS = _attack_discards(data)
        if set(self.DISCARDS) != set(OUTCOMES):
            raise DataFileError(
                "the die faces of the data and of the rule logic differ"
            )  # from marauders/attack-roll: die face -> frames discarded from the broken line
        self.ATTACK_CONDITIONS = data.ref("marauders/attack-conditions")
        self.AFTER_THE_ATTACK = data.ref("marauders/after-the-attack")
        self.END_OF_GAME = data.ref("marauders/end-of-game")
        self.CLARIFY_DISCARDS = data.ref("marauders/clarify-attack-discard-asymmetry")
        self.CLARIFY_GREY = data.ref("marauders/clarify-grey-cards")
        self.LINES = data.param("marauders/completed-line", "lines_per_player")  # from marauders/completed-line
        self.PER_LINE = {
            "standard": data.param("marauders/standards-and-musicians", "standards_per_line"),
            "musician": data.param("marauders/standards-and-musicians", "musicians_per_line"),
        }  # from marauders/standards-and-musicians
        self.SAME_SYMBOL_PER_LINE = data.param("marauders/end-of-turn-cards", "same_symbol_per_line")  # from marauders/end-of-turn-cards
        self.MAX_SAME_SYMBOL = data.param("marauders/fourth-duplicate", "max_same_symbol_per_tribe")  # from marauders/fourth-duplicate
        self.EXEMPT_SYMBOLS = [s.strip() for s in data.param("marauders/fourth-duplicate", "exempt_symbols").split(",") if s.strip()]
        self.ATTACK_ROLL = data.ref("marauders/attack-roll")
        self.CLARIFY_TROPHY_LINE = data.ref("marauders/clarify-line-completed-by-trophy")
        self.CHEATING_RULE = data.ref("marauders/cheating")
        self.CLARIFY_CHEATING = data.ref("marauders/clarify-cheating-scope")

    @check("line")
    def line(self, spaces: list[Any]) -> dict[str, Any]:
        """`spaces` lists the line's spaces left to right: a card name, "standard", "musician", or null for a gap."""
        problems = self._line_problems(spaces)
        cards = [s for s in spaces if s is not None]
        filled = [i for i, s in enumerate(spaces) if s is not None]
        first, last = (filled[0], filled[-1]) if filled else (0, -1)
        gaps = [i for i in range(first, last + 1) if spaces[i] is None]
        completed = (
            not problems and bool(filled) and spaces[first] == "standard" and spaces[last] == "musician" and not gaps and len(cards) >= self.LINE_MIN
        )
        return {"valid": not problems, "problems": [str(problem) for problem in problems], "completed": completed, "cards": len(cards), "gaps": gaps}

    def _line_problems(self, spaces: list[Any]) -> list[RulesError]:
        """What makes a line invalid, each as the refusal it makes where the line must be valid."""
        problems = []
        if len(spaces) > self.LINE_MAX:
            problems.append(REFUSALS("line-too-long", spaces=self.LINE_MAX))
        cards = [s for s in spaces if s is not None]
        duplicates = sorted({c for c in cards if c not in ("standard", "musician") and cards.count(c) > 1})
        if duplicates:
            problems.append(REFUSALS("duplicate-cards", cards=duplicates))
        if any(cards.count(kind) > limit for kind, limit in self.PER_LINE.items()):
            problems.append(
                REFUSALS(
                    "one-standard-one-musician", rule=self.STANDARDS_RULE, standards=self.PER_LINE["standard"], musicians=self.PER_LINE["musician"]
                )
            )
        filled = [i for i, s in enumerate(spaces) if s is not None]
        if "standard" in spaces and any(i < spaces.index("standard") for i in filled):
            problems.append(REFUSALS("card-left-of-standard", rule=self.PLACEMENT_RULE))
        if "musician" in spaces and any(i > spaces.index("musician") for i in filled):
            problems.append(REFUSALS("card-right-of-musician", rule=self.PLACEMENT_RULE))
        return problems

    def _line_points(self, entry: ScoredLine) -> dict[str, Any]:
        points = {}
        if entry["completed"]:
            bonus = [vp for low, high, vp in self.LENGTH_BONUS if low <= entry["cards"] <= high]
            if not (self.LINE_MIN <= entry["cards"] <= self.LINE_MAX):
                raise REFUSALS("completed-line-length", low=self.LINE_MIN, high=self.LINE_MAX, cards=entry["cards"])
            if bonus:
                points["line_length"] = bonus[0]
        for card in entry.get("scoring_cards", []):
            if card not in self.CARD_VP:
                raise REFUSALS("card-without-points", card=card, cards=sorted(self.CARD_VP))
            points[card] = self.CARD_VP[card]
        for machine in entry.get("war_machines_with_crew", []):
            points[f"{machine}_with_crew"] = self.WITH_CREW
        for machine in entry.get("war_machines_without_crew", []):
            points[f"{machine}_without_crew"] = self.WITHOUT_CREW
        points["total"] = sum(points.values())
        return points

    @check("score")
    def score(self, lines: list[ScoredLine], completed_three_lines_first: bool = False) -> dict[str, Any]:
        """A completed line of 4 cards scores no length bonus: the table starts at 5 (see the clarification named in
        the result)."""
        result: dict[str, Any] = {}
        for number, entry in enumerate(lines, 1):
            result[f"line_{entry.get('position', number)}"] = self._line_points(entry)
        cards = sum(entry["cards"] for entry in lines)
        result["per_card_points"] = cards * self.PER_CARD
        result["first_to_three_lines_bonus"] = self.FIRST_THREE if completed_three_lines_first else 0
        result["total"] = (
            sum(v["total"] for k, v in result.items() if k.startswith("line_")) + result["per_card_points"] + result["first_to_three_lines_bonus"]
        )
        if any(entry["completed"] and entry["cards"] < min(low for low, _, _ in self.LENGTH_BONUS) for entry in lines):
            result["clarification"] = self.SHORT_LINE
        return result

    def _strength(self, side: str, line: Defender) -> int:
        """Attack strength: the sum of the cards' attack ratings (cards without a rating add nothing)."""
        cards, given = line.get("cards"), line.get("attack_strength")
        if cards is None:
            if given is None:
                raise REFUSALS("cards-or-strength", side=side)
            return int(given)
        total = 0
        for position, card in enumerate(cards, 1):
            rating = card.get("attack_rating")
            if rating is None:
                continue
            if not self.RATING_MIN <= rating <= self.RATING_MAX:
                raise REFUSALS(
                    "rating-out-of-range", side=side, card=self._name(card, position), rating=rating, low=self.RATING_MIN, high=self.RATING_MAX
                )
            total += rating
        if given is not None and given != total:
            raise REFUSALS("strength-not-the-sum", side=side, given=given, total=total)
        return total

    def _name(self, card: LineCard, position: int) -> str:
        return card.get("card") or f"#{position}"

    def _outcome(self, face: str, lines: dict[str, Defender]) -> dict[str, Any]:
        result, broken, winner = OUTCOMES[face]
        outcome = {
            "face": face,
            "result": result,
            "broken_line": broken,
            "winner": winner,
            "discard_frames": self.DISCARDS[face],
            "not_placed_go_to": "discard_pile",
            "turn_ends": True,
            "attacking_line_may_attack_again": False,
            "trophy_completed_line_may_attack": False,
        }
        cards = lines[broken].get("cards")
        clarifications = [self.CLARIFY_DISCARDS]
        if cards is not None:
            outcome["discarded"] = [self._name(c, i) for i, c in enumerate(cards, 1) if c["frame"] in self.DISCARDS[face]]
            outcome["winner_may_take"] = [self._name(c, i) for i, c in enumerate(cards, 1) if c["frame"] not in self.DISCARDS[face]]
        if "grey" in self.DISCARDS[face] or any(c["frame"] == "grey" for c in cards or []):
            clarifications.append(self.CLARIFY_GREY)
        outcome["clarifications"] = clarifications
        return outcome

    @check("attack")
    def attack(self, attacker: Attacker, defender: Defender, roll: str | None = None) -> dict[str, Any]:
        """`attacker` and `defender` are lines: `completed`, and `cards` (each with `frame` and, if it has one,
        `attack_rating`) or just `attack_strength`. The attacker may also say `attacks_made` since this completion,
        `just_completed` (false: completed earlier and did not attack then), `completed_by_trophy`,
        `completed_with_end_of_turn_card`, and `completed_lines` (the tribe's completed lines, this one included).
        `roll` is the face of the Cube of Devastation; without it both faces are described. A line that does not attack
        when completed may not attack later, until it is broken up by a card and completed again (`without_attack`).
        Grey cards are grey-framed cards and the discards follow the text as printed (purple only on the Orc Eye,
        grey and purple on the Mark of Chaos): the clarifications named in each outcome.
        """
        lines: dict[str, Defender] = {"attacker": attacker, "defender": defender}
        strength = {side: self._strength(side, line) for side, line in lines.items()}
        completed_lines = attacker.get("completed_lines", 1)
        if attacker["completed"] and not 1 <= completed_lines <= self.LINES_TO_END:
            raise REFUSALS("completed-lines-out-of-range", most=self.LINES_TO_END, lines=completed_lines)
        reasons = self._attack_conditions(attacker, defender, strength) + self._completion_limits(attacker, completed_lines)
        end_of_turn_card = attacker.get("completed_with_end_of_turn_card", False)
        result = {
            "allowed": not reasons,
            "reasons": reasons,
            "attack_strength": strength,
            "game_over": attacker["completed"] and completed_lines == self.LINES_TO_END,
            "without_attack": {"turn_ends": end_of_turn_card, "line_may_attack_later": False},
        }
        if reasons:
            return result
        if roll is None:
            result["outcomes"] = {face: self._outcome(face, lines) for face in OUTCOMES}
        else:
            result.update(self._outcome(roll, lines))
        return result

    def _attack_conditions(self, attacker: Attacker, defender: Defender, strength: dict[str, int]) -> list[dict[str, str]]:
        """Why the lines may not fight (marauders/attack-conditions): a completed line attacks an uncompleted line of
        another tribe, stronger than it, so many times."""
        reasons = []
        if not attacker["completed"]:
            reasons.append(_reason("attacker_not_completed", self.ATTACK_CONDITIONS, "only a completed line may attack"))
        if defender["completed"]:
            reasons.append(_reason("defender_completed", self.ATTACK_CONDITIONS, "only an uncompleted line may be attacked"))
        if attacker.get("tribe") is not None and attacker.get("tribe") == defender.get("tribe"):
            reasons.append(_reason("same_tribe", self.ATTACK_CONDITIONS, "a line may attack only a line of another tribe"))
        stronger = strength["attacker"] > strength["defender"] if self.STRICTLY_STRONGER else strength["attacker"] >= strength["defender"]
        if not stronger:
            reasons.append(
                _reason(
                    "not_stronger",
                    self.ATTACK_CONDITIONS,
                    f"attack strength {strength['attacker']} is not "
                    f"{'greater than' if self.STRICTLY_STRONGER else 'at least'} the target's {strength['defender']}",
                )
            )
        if attacker.get("attacks_made", 0) >= self.ATTACKS_PER_LINE:
            reasons.append(_reason("already_attacked", self.ATTACK_CONDITIONS, f"a completed line may attack {self.ATTACKS_PER_LINE} time(s)"))
        return reasons

    def _completion_limits(self, attacker: Attacker, completed_lines: int) -> list[dict[str, str]]:
        """Why the attacking line may not attack for the way it was completed: not just now (marauders/after-the-attack),
        by a card taken in an attack, or as the tribe's last line, which ends the game (marauders/end-of-game)."""
        reasons = []
        if attacker["completed"] and not attacker.get("just_completed", True):
            reasons.append(
                _reason("not_just_completed", self.AFTER_THE_ATTACK, "a completed line that did not attack when it was completed cannot attack later")
            )
        if attacker.get("completed_by_trophy", False):
            reasons.append(_reason("completed_by_trophy", self.AFTER_THE_ATTACK, "a line completed by a card taken in an attack may not attack"))
        if attacker["completed"] and completed_lines == self.LINES_TO_END:
            reasons.append(
                _reason(
                    "game_over",
                    self.END_OF_GAME,
                    f"the tribe has completed {self.LINES_TO_END} lines: the game is over and the line completed last may not attack",
                )
            )
        return reasons

    @check("draw")
    def draw(self, drawn: str, lines: list[Any], green: bool = False, will_place: bool = True) -> dict[str, Any]:
        """`drawn`: the drawn card's symbol, "standard" or "musician" for those cards (as in `line`). `lines`: the tribe's
        lines, each its spaces left to right as in `line` (a card, or null for a gap). `green`: the card has a green
        frame. `will_place`: false when the player cannot or will not place a card that some line could take.
        Free spaces on the sheet are not modelled: a line "may take" the card when the rules about symbols allow it.
        The exempt symbols (the Blightskabb Plague Lords) are not limited by the fourth-duplicate rule; their own
        cards, not in the corpus, may say more.
        """
        self._tribe_lines(lines)
        cards = [[c for c in spaces if c is not None] for spaces in lines]
        self._check_tribe_cards(cards)
        may, rule = self._lines_that_take(drawn, cards)
        result = {"may_place_in": may, "exempt_from_fourth_duplicate": drawn in self.EXEMPT_SYMBOLS}
        duplicate = drawn not in self.PER_LINE and any(drawn in line_cards for line_cards in cards)
        if not may:
            result.update(discarded=True, turn_ends=True, reason="no_line_can_take_it", rule=rule)
        elif not will_place:
            result.update(discarded=True, turn_ends=True, reason="not_placed", rule=self.END_OF_TURN_RULE)
        elif green:
            result.update(discarded=False, turn_ends=True, reason="green_card", rule=self.END_OF_TURN_RULE)
        elif duplicate:  # placed, then the turn ends (after the attack it allows if it completes a line)
            result.update(discarded=False, turn_ends=True, reason="duplicate_placed", rule=self.DUPLICATE_ENDS_TURN)
        else:
            result.update(discarded=False, turn_ends=False, reason=None, rule=rule)
        return result

    def _check_tribe_cards(self, cards: list[list[Any]]) -> None:
        """The cards already on the sheet, line by line, must obey the limits: so many standards and musicians per
        line, and at most so many cards of one symbol in the tribe (the exempt symbols aside)."""
        for number, line_cards in enumerate(cards, 1):
            for kind, limit in self.PER_LINE.items():
                if line_cards.count(kind) > limit:
                    raise REFUSALS("too-many-in-a-line", line=number, count=line_cards.count(kind), kind=kind, most=limit)
        tribe = [c for line_cards in cards for c in line_cards if c not in self.PER_LINE and c not in self.EXEMPT_SYMBOLS]
        over = sorted({c for c in tribe if tribe.count(c) > self.MAX_SAME_SYMBOL})
        if over:
            raise REFUSALS("same-symbol-limit", most=self.MAX_SAME_SYMBOL, symbols=over)

    def _lines_that_take(self, drawn: str, cards: list[list[Any]]) -> tuple[list[int], str]:
        """The lines (numbered from 1) that may take the drawn card, and the rule that says so: a standard or musician
        where the line has fewer than its limit, an exempt symbol anywhere, another symbol where the line lacks it."""
        if drawn in self.PER_LINE:
            return [n for n, c in enumerate(cards, 1) if c.count(drawn) < self.PER_LINE[drawn]], self.STANDARDS_RULE
        if drawn in self.EXEMPT_SYMBOLS:
            return list(range(1, self.LINES + 1)), self.FOURTH_DUPLICATE_RULE
        may = [n for n, c in enumerate(cards, 1) if c.count(drawn) < self.SAME_SYMBOL_PER_LINE]
        return may, self.FOURTH_DUPLICATE_RULE if not may else self.END_OF_TURN_RULE

    # -- whole situations: a whole turn, and the final standings -----------------------------------------------------

    @check("turn")
    def turn(self, lines: list[Any], draws: list[Draw]) -> dict[str, Any]:
        """A whole turn: each drawn card in order (`card`, `green`, and where it goes: `line` 1-3 and `space` 1-12, or
        no `line` for a card not placed), checked with `draw` (what the rules let it do, whether the turn ends) and
        `line` (placement, ends, duplicates); lines completed by it may attack, after which the turn ends.
        `lines`: the tribe's lines before the turn, each its spaces left to right (null for a free space)."""
        sheet = self._padded(lines)
        completed_before = [self.line(spaces=spaces)["completed"] for spaces in sheet]
        steps: list[dict[str, Any]] = []
        for number, drawn in enumerate(draws, 1):
            if steps and steps[-1]["turn_ends"]:
                raise REFUSALS("turn-already-over", rule=steps[-1]["rule"], number=number, previous=number - 1)
            target = drawn.get("line")
            answer = self.draw(drawn=drawn["card"], lines=sheet, green=drawn.get("green", False), will_place=target is not None)
            step = {
                "card": drawn["card"],
                "placed_in": None,
                "discarded": answer["discarded"],
                "turn_ends": answer["turn_ends"],
                "reason": answer["reason"],
                "rule": answer["rule"],
                "completed_line": None,
            }
            if target is not None and not answer["discarded"]:
                step["placed_in"], step["completed_line"] = self._place(sheet, completed_before, drawn, target, answer, number)
            steps.append(step)
        completed_now = [s["completed_line"] for s in steps if s["completed_line"]]
        completed = sum(completed_before)
        return {
            "steps": steps,
            "lines": sheet,
            "turn_ended": bool(steps) and steps[-1]["turn_ends"],
            "lines_completed_this_turn": completed_now,
            "completed_lines": completed,
            "game_over": completed >= self.LINES_TO_END,
            # only the line completed by the last card: one that did not attack when completed never may (after-the-attack)
            "may_attack_with": [steps[-1]["completed_line"]] if steps and steps[-1]["completed_line"] and completed < self.LINES_TO_END else [],
            "rules": [
                self.ATTACK_CONDITIONS,
                self.AFTER_THE_ATTACK,
                self.data.ref("marauders/attack-before-end-of-turn"),
                self.END_OF_GAME,
            ],
        }

    def _place(
        self, sheet: list[list[Any]], completed: list[bool], drawn: Draw, target: int, answer: dict[str, Any], number: int
    ) -> tuple[dict[str, int], int | None]:
        """Place the `number`-th drawn card in line `target` of the sheet (changed; `completed` too): a line `draw` lets
        take it, a free space, and the line still valid (`line`). Where it went, and the line it completes, if any."""
        if target not in answer["may_place_in"]:
            raise REFUSALS("not-this-line", rule=answer["rule"], number=number, card=drawn["card"], lines=answer["may_place_in"])
        space = drawn.get("space")
        if space is None or sheet[target - 1][space - 1] is not None:
            raise REFUSALS("no-free-space", rule=self.PLACEMENT_RULE, number=number, spaces=self.LINE_MAX, line=target)
        placed = list(sheet[target - 1])
        placed[space - 1] = drawn["card"]
        checked = self.line(spaces=placed)
        if not checked["valid"]:
            raise REFUSALS("draw-breaks-the-line", number=number, problems=self._line_problems(placed))
        sheet[target - 1] = placed
        if checked["completed"] and not completed[target - 1]:
            completed[target - 1] = True
            return {"line": target, "space": space}, target
        return {"line": target, "space": space}, None

    @check("standings")
    def standings(self, tribes: dict[str, Tribe]) -> dict[str, Any]:
        """The final standings: each tribe's victory points (as `score`), the 150 for the first to complete three lines
        (at most one tribe), the ranking, and a tie for first settled by the loudest Waaagh! (not computable)."""
        first = [name for name, tribe in tribes.items() if tribe.get("completed_three_lines_first")]
        if len(first) > 1:
            raise REFUSALS("first-twice", rule=self.END_OF_GAME, tribes=sorted(first))
        totals = {name: self.score(**tribe)["total"] for name, tribe in tribes.items()}
        ranking = sorted(totals, key=lambda name: (-totals[name], name))
        top = totals[ranking[0]]
        leaders = [name for name in ranking if totals[name] == top]
        return {
            "totals": totals,
            "ranking": [{"tribe": name, "vp": totals[name], "place": 1 + sum(v > totals[name] for v in totals.values())} for name in ranking],
            "winner": leaders[0] if len(leaders) == 1 else None,
            "tied_for_first": leaders if len(leaders) > 1 else [],
            "tie_break": self.data.ref("marauders/tie") if len(leaders) > 1 else None,
            "rules": [self.data.ref("marauders/clarify-win-condition"), self.END_OF_GAME],
        }

    # -- after the attack: the winner's trophies; and the cheating rule ---------------------------------------------

    def _tribe_lines(self, lines: Sheet) -> None:
        """A tribe has LINES lines: refused otherwise."""
        if len(lines) != self.LINES:
            raise REFUSALS("lines-of-a-tribe", lines=self.LINES, given=len(lines))

    def _padded(self, lines: Sheet) -> Sheet:
        """The tribe's lines (`_tribe_lines`), each padded to the sheet's spaces."""
        self._tribe_lines(lines)
        return [list(spaces) + [None] * (self.LINE_MAX - len(spaces)) for spaces in lines]

    def _sheet(self, lines: Sheet) -> Sheet:
        """The tribe's lines padded to the sheet's spaces; refused unless there are 3 and each is valid."""
        sheet = self._padded(lines)
        for number, spaces in enumerate(sheet, 1):
            problems = self._line_problems(spaces)
            if problems:
                raise REFUSALS("winner-line-invalid", line=number, problems=problems)
        return sheet

    def _take_trophy(self, number: int, card: str, takeable: list[str], taken: list[str]) -> None:
        """A trophy is a card of the broken line that the roll did not discard, taken once (marauders/attack-roll)."""
        if card not in takeable or card in taken:
            refusal = "trophy-already-placed" if card in taken else "trophy-not-takeable"
            raise REFUSALS(refusal, rule=self.ATTACK_ROLL, number=number, card=card, cards=takeable)
        taken.append(card)

    def _place_trophy(self, number: int, sheet: Sheet, placement: Placement) -> bool:
        """Place one trophy on a free space, under the placement rules every card obeys (marauders/card-placement and
        the fourth duplicate); True when it completes that line."""
        line, space, card = placement["line"], placement["space"], placement["card"]
        spaces = list(sheet[line - 1])
        if spaces[space - 1] is not None:
            raise REFUSALS("trophy-space-taken", rule=self.PLACEMENT_RULE, number=number, space=space, line=line)
        was_completed = self.line(spaces=spaces)["completed"]
        spaces[space - 1] = card
        checked = self.line(spaces=spaces)
        if not checked["valid"]:
            raise REFUSALS("trophy-breaks-the-line", number=number, problems=self._line_problems(spaces))
        held = sum(spaces_of.count(card) for spaces_of in sheet) + 1
        if card not in self.PER_LINE and card not in self.EXEMPT_SYMBOLS and held > self.MAX_SAME_SYMBOL:
            raise REFUSALS("trophy-symbol-limit", rule=self.FOURTH_DUPLICATE_RULE, number=number, held=held, card=card)
        sheet[line - 1] = spaces
        return bool(checked["completed"]) and not was_completed

    @check("trophies")
    def trophies(self, face: str, broken_line: list[BrokenCard], winner_lines: Sheet, placements: list[Placement]) -> dict[str, Any]:
        """After an attack: the broken line's cards the roll discards (purple on the Orc Eye, grey and purple on the
        Mark of Chaos), the trophies the winner places on free spaces of his lines in the order given (each under the
        placement rules), the rest to the discard pile; lines completed by a trophy never attack; the turn passes."""
        _result, _broken, winner = OUTCOMES[face]
        sheet = self._sheet(winner_lines)
        names = [card["card"] for card in broken_line]
        discarded = [card["card"] for card in broken_line if card["frame"] in self.DISCARDS[face]]
        takeable = [name for name in names if name not in discarded]
        taken: list[str] = []
        completed_now: list[int] = []
        for number, placement in enumerate(placements, 1):
            self._take_trophy(number, placement["card"], takeable, taken)
            if self._place_trophy(number, sheet, placement):
                completed_now.append(placement["line"])
        completed = sum(self.line(spaces=spaces)["completed"] for spaces in sheet)
        clarifications = [self.CLARIFY_DISCARDS] + ([self.CLARIFY_TROPHY_LINE] if completed_now else [])
        return {
            "winner": winner,
            "discarded_by_the_roll": discarded,
            "placed": [{"card": p["card"], "line": p["line"], "space": p["space"]} for p in placements],
            "not_placed": [name for name in takeable if name not in taken],
            "lines": sheet,
            "lines_completed_by_trophies": completed_now,
            "completed_lines": completed,
            "game_over": completed >= self.LINES_TO_END,
            "may_attack_with": [],
            "turn_passes": True,
            "clarifications": clarifications,
            "rules": [self.ATTACK_ROLL, self.AFTER_THE_ATTACK, self.PLACEMENT_RULE, self.END_OF_GAME],
        }

    def _duplicates(self, number: int, spaces: list[str | None]) -> list[Placement]:
        """Every card of a line whose symbol the line holds more than once: all of them, the first placed too."""
        symbols = [s for s in spaces if s is not None and s not in self.PER_LINE]
        return [
            Placement(card=card, line=number, space=space)
            for space, card in enumerate(spaces, 1)
            if card is not None and card not in self.PER_LINE and symbols.count(card) > 1
        ]

    def _breaches(self, spaces: list[str | None]) -> list[str]:
        """The placement rules other than duplicates that a line breaks (marauders/card-placement,
        marauders/standards-and-musicians), as codes."""
        breaches = [f"second_{kind}" for kind, limit in self.PER_LINE.items() if spaces.count(kind) > limit]
        filled = [i for i, card in enumerate(spaces) if card is not None]
        if "standard" in spaces and any(i < spaces.index("standard") for i in filled):
            breaches.append("left_of_standard")
        if "musician" in spaces and any(i > spaces.index("musician") for i in filled):
            breaches.append("right_of_musician")
        return breaches

    @check("cheating")
    def cheating(self, lines: Sheet) -> dict[str, Any]:
        """The cheating rule: a line holding two or more duplicates against the rules loses all of them. Other
        breaches (a second Standard or Musician, a card beyond an end) are named, without a remedy: the cheating rule
        speaks of duplicates only (marauders/clarify-cheating-scope)."""
        self._tribe_lines(lines)
        discarded = [card for number, spaces in enumerate(lines, 1) for card in self._duplicates(number, spaces)]
        after = [list(spaces) for spaces in lines]
        for card in discarded:
            after[card["line"] - 1][card["space"] - 1] = None
        other = [{"line": number, "breach": breach} for number, spaces in enumerate(after, 1) for breach in self._breaches(spaces)]
        return {
            "cheating": bool(discarded),
            "discarded": discarded,
            "lines": after,
            "completed": [self.line(spaces=spaces)["completed"] for spaces in after],
            "other_breaches": other,
            "rule": self.CHEATING_RULE,
            "clarifications": [self.CLARIFY_CHEATING] if other else [],
        }
