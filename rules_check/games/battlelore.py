"""BattleLore (Second Edition reference guide): the checks, with every number read from the entries named next to it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, NotRequired, TypedDict, cast

from ..core import Game, GameData, Refusals, check

REFUSALS = Refusals(
    {
        "unknown-terrain": "unknown terrain '{terrain}'; terrains are {terrains} (and {edge} for a path)",
        "combat-dice-missing": "give the unit's combat dice (the number on its reference card)",
        "lore-cards-without-dice-effect": "lore card(s) {cards}: their dice effect is not in the guide; give {field}",
        "path-too-short-for-flying": "the path lists {hexes} hex(es); {retreats} retreat(s) need {retreats}",
        "path-too-short": "the path lists {hexes} hex(es); the retreat needs at least {needed}",
        "spent-more-than-rolled": "cannot spend {spent} {face} result(s): the roll has {rolled}",
        "unknown-faces": "unknown face(s) {faces}; faces are {known}",
        "unknown-face": "unknown face {face}; faces are {faces}",
        "no-unit-in-impassable-terrain": "no unit stands in {terrain}: it is impassable terrain",
        "two-players": "BattleLore has two players",
        "both-armies-destroyed": "both armies destroyed: the destroying attack ends the game for one side first",
        "campaign-length": "a campaign has {scenarios} scenarios, not {given}",
        "campaign-players": "each scenario needs the points of the same two players and one of them as winner",
        "pursuit-needs-target-hex": "give {field} (the hex of the original attack's target) to check a pursuit path",
        "path-given-twice": "give the path as labels ({fields}) or on the board, not both",
        "x-below-one": "{ability} X is the number on the unit's reference card, at least 1, not {x}",
        "unknown-ability": "unknown ability '{ability}': {pursue} or {skirmish}",
        "no-copy-of-the-game": "at least one copy of the game",
        "two-factions": "BattleLore has two players, one faction each",
        "same-faction": "the two players may not fight for the same faction ({faction})",
        "position-cards-missing": "give the position cards of one copy for {factions}",
        "not-a-faction-in-play": "'{faction}' is not one of the two factions ({factions})",
        "same-hex": "the attacking unit and its target are in the same hex",
        "two-terrains": "hex [{hex}] is given two terrains",
        "melee-unit-range": "a melee unit's attack range is {range}: give {low} and {high} only for a unit with the Ranged trait",
        "min-above-max": "a minimum range of {low} above the maximum range of {high}: the reference card shows a band, minimum first",
        "attacker-results-count": "the attacker rolls {dice} dice, but {rolled} results are given",
        "counterattack-results-count": "the counterattacking unit rolls {dice} dice, but {rolled} results are given",
        "melee-target-not-adjacent": "the target of a melee attack must be in an adjacent hex",
        "stunned-cannot-attack": "a stunned unit cannot attack",
        "no-counterattack": "the target may not counterattack: {reason}",
        "target-destroyed": "the target was destroyed",
        "target-left-its-hex": "the target retreated from its hex",
        "target-not-adjacent": "the target is not adjacent to the attacker",
        "stunned-cannot-counterattack": "a stunned unit cannot counterattack",
        "attacker-lost-last-figure": "the attacking unit lost its last figure to Berserk after its attack",
        "heroic-without-berserk": "{count} heroic result(s) spent for damage through {effect}: the rolling unit has no Berserk",
        "heroic-without-poison": "{count} heroic result(s) spent for damage through {effect}: the unit rolled against is not poisoned",
        "heroic-without-fury": "{count} heroic result(s) spent for damage through {effect}: Fury of Y'llan was not played",
        "heroic-overspent": "{spent} heroic results spent, but the roll has {rolled}: each die is spent on one effect only",
        "range-one-is-adjacent": "a target at range {range} is in an adjacent hex",
        "range-not-adjacent": "a target at range {range} is not in an adjacent hex",
        "melee-attack-range": "a melee attack's range is {range}: {low} and {high} belong to a ranged attack",
        "ranged-range-missing": (
            "to judge the range of a ranged attack give {fields}; the band is on the unit's reference card, which the sources do not print"
        ),
        "under-minimum-range": "the target is at range {range}, under the minimum range of {low}: {reason}",
        "beyond-maximum-range": "the target is at range {range}, beyond the maximum range of {high}: {reason}",
        "adjacent-needs-minimum-one": "a ranged unit may attack an adjacent unit only with a minimum range of 1",
        "target-within-range": "a ranged attack's target is within the attacking unit's range",
        "own-hex-among-units": "the moving unit's own hex [{start}] is listed among the other units",
        "step-not-adjacent": "step {step}: hex [{hex}] is not adjacent to [{previous}]",
    }
)

# why the target may not counterattack (the output's code) -> the refusal that says it
CANNOT_COUNTERATTACK = {
    "destroyed": "target-destroyed",
    "left_its_hex": "target-left-its-hex",
    "not_adjacent": "target-not-adjacent",
    "stunned": "stunned-cannot-counterattack",
    "attacker_destroyed": "attacker-lost-last-figure",
}

# terrain -> the entry holding its params
TERRAIN_ENTRIES = {
    "plains": "battlelore/plains",
    "forest": "battlelore/forest",
    "hill": "battlelore/hill",
    "building": "battlelore/building",
    "water": "battlelore/water",
    "ford": "battlelore/ford",
    "bridge": "battlelore/bridge",
    "command_tent": "battlelore/command-tent",
}


Hex = tuple[int, int]

# the schemas' terrain names are an enum, but the code reads them as the data's (`_terrain` refuses others): str here
AttackType = Literal["melee", "ranged"]


class DiceUnit(TypedDict):
    """A unit as a combat roll's dice read it (combat_dice_input.attacker, combat_dice_input.target)."""

    dice: NotRequired[int]
    terrain: NotRequired[str]
    flying: NotRequired[bool]
    rage: NotRequired[bool]
    damage_suffered: NotRequired[int]
    unit: NotRequired[str]


class CounterattackDice(TypedDict):
    """The target's roll back (combat_dice_input.counterattack)."""

    attack_type: NotRequired[AttackType]
    friendly_flankers_adjacent_to_target: NotRequired[int]
    lore_cards: NotRequired[list[str]]
    other_modifiers: NotRequired[int]


class RetreatingUnit(TypedDict):
    """A unit taking damage and retreating (damage_and_retreat_input.target)."""

    terrain: NotRequired[str]
    flying: NotRequired[bool]
    stunned: NotRequired[bool]
    steady: NotRequired[int]
    ignore_retreats: NotRequired[int]
    ignore_damage: NotRequired[int]
    cumbersome: NotRequired[bool]
    health: NotRequired[int]
    unit: NotRequired[str]


class PathHex(TypedDict):
    """A hex behind a retreating unit, nearest first (damage_and_retreat_input.path, attack_input.path,
    attack_input.counterattack.path)."""

    terrain: NotRequired[str]
    unit: NotRequired[Literal["friendly", "enemy"]]


class ExpectedAttacker(TypedDict):
    """The rolling unit of expected_hits (expected_hits_input.attacker)."""

    dice: int
    terrain: NotRequired[str]
    flying: NotRequired[bool]


class ExpectedTarget(TypedDict):
    """The target of expected_hits (expected_hits_input.target)."""

    terrain: NotRequired[str]
    flying: NotRequired[bool]


class Scenario(TypedDict):
    """A scenario of the campaign (campaign_input.scenarios)."""

    number: NotRequired[int]
    vp: dict[str, int]
    winner: str


class TerrainSpot(TypedDict):
    """A hex's terrain on a board (move_input.terrain, ability_move_input.board.terrain; off_board allowed)."""

    hex: list[int]
    terrain: str


class SightSpot(TypedDict):
    """A hex's terrain for line of sight (line_of_sight_input.terrain)."""

    hex: list[int]
    terrain: str


class MovingUnit(TypedDict):
    """The moving unit (move_input.unit, ability_move_input.board.unit)."""

    flying: NotRequired[bool]
    cumbersome: NotRequired[bool]
    unit: NotRequired[str]


class Board(TypedDict):
    """An ability move on the board, as for `move` (ability_move_input.board)."""

    start: list[int]
    path: list[list[int]]
    target: NotRequired[list[int]]
    terrain: NotRequired[list[TerrainSpot]]
    units: NotRequired[list[list[int]]]
    unit: NotRequired[MovingUnit]


class HeroicDamage(TypedDict):
    """Heroic results spent for damage, per effect (attack_input.heroic_damage, attack_input.counterattack.heroic_damage)."""

    berserk: NotRequired[int]
    poison: NotRequired[int]
    fury_of_yllan: NotRequired[int]


class _CombatUnit(TypedDict):
    """What attack_input.attacker and attack_input.target both may say; each adds `dice` and `health`."""

    terrain: NotRequired[str]
    flying: NotRequired[bool]
    rage: NotRequired[bool]
    damage_suffered: NotRequired[int]
    unit: NotRequired[str]
    stunned: NotRequired[bool]
    steady: NotRequired[int]
    ignore_retreats: NotRequired[int]
    ignore_damage: NotRequired[int]
    cumbersome: NotRequired[bool]
    damage_tokens: NotRequired[bool]
    berserk: NotRequired[bool]
    poisoned: NotRequired[bool]
    ferocious: NotRequired[bool]


class AttackingUnit(_CombatUnit):
    """The attacking unit of a whole attack (attack_input.attacker)."""

    dice: int
    health: NotRequired[int]


class AttackedUnit(_CombatUnit):
    """The target of a whole attack (attack_input.target)."""

    dice: int
    health: int


class Counterattack(TypedDict):
    """The target's counterattack in a whole attack (attack_input.counterattack)."""

    results: NotRequired[dict[str, int]]
    spent: NotRequired[dict[str, int]]
    path: NotRequired[list[PathHex]]
    attack_type: NotRequired[AttackType]
    friendly_flankers_adjacent_to_target: NotRequired[int]
    lore_cards: NotRequired[list[str]]
    other_modifiers: NotRequired[int]
    heroic_damage: NotRequired[HeroicDamage]


# what damage_and_retreat reads of a unit
DAMAGE_KEYS = ("terrain", "flying", "stunned", "steady", "ignore_retreats", "ignore_damage", "cumbersome", "health")
# what combat_dice reads of a unit
DICE_KEYS = ("dice", "terrain", "flying", "rage", "damage_suffered")


def _dice_view(unit: Mapping[str, object]) -> DiceUnit:
    return cast("DiceUnit", {k: unit[k] for k in DICE_KEYS if k in unit})


def _damage_view(unit: Mapping[str, object]) -> RetreatingUnit:
    return cast("RetreatingUnit", {k: unit[k] for k in DAMAGE_KEYS if k in unit})


def _cannot_counterattack(code: str, rule: str) -> dict[str, str]:
    """A reason the target may not counterattack, as the output lists it: its code, the rule and the message."""
    return {"code": code, "rule": rule, "message": REFUSALS.messages[CANNOT_COUNTERATTACK[code]]}


def _figures(unit: AttackedUnit, health_left: int | None) -> int | None:
    """The figures a unit has: one for a unit with damage tokens (battlelore/weakened-unit), else its health left."""
    return 1 if unit.get("damage_tokens") else health_left


@dataclass(frozen=True)
class Strike:
    """One combat roll's inputs after the dice: the results, what is spent, the retreat path, the lore cards played and
    the heroic results spent for damage through each effect."""

    attack_type: str
    results: dict[str, int]
    spent: dict[str, int] | None
    path: list[PathHex] | None
    lore_cards: list[str] | None
    heroic_damage: HeroicDamage | None


def _cube(hex_: Hex) -> tuple[int, int, int]:
    """Axial (q, r) -> cube (x, y, z) with x + y + z = 0."""
    q, r = hex_
    return q, -q - r, r


def hex_distance(a: Hex, b: Hex) -> int:
    """Hexes from a to b: a's hex not counted, b's counted (battlelore/range)."""
    return max(abs(u - v) for u, v in zip(_cube(a), _cube(b), strict=True))


NEIGHBOURS: tuple[Hex, ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))  # axial offsets of the six neighbours


def _dot4(u: Hex, v: Hex) -> int:
    """4 x the Euclidean dot product of two axial vectors laid out on the plane (x = q + r/2, y = r * sqrt(3)/2)."""
    return (2 * u[0] + u[1]) * (2 * v[0] + v[1]) + 3 * u[1] * v[1]


def _cross_sign(u: Hex, v: Hex) -> int:
    """The sign of the plane's cross product u x v (the layout above, scaled, keeps it)."""
    value = (2 * u[0] + u[1]) * v[1] - u[1] * (2 * v[0] + v[1])
    return (value > 0) - (value < 0)


def retreat_direction(a: Hex, b: Hex, side: int) -> Hex:
    """The neighbour offset a unit in b retreats along when attacked from a (battlelore/retreat): straight away from
    the attacker, out through the side of b's hex opposite the one the line of sight from a crosses. Where that line
    reaches b's hex at a corner, the line shifted to `side` (as `_crossed` shifts it) crosses one of the two sides
    there, and the retreat leaves through the side opposite that one (battlelore/clarify-ranged-retreat-through-corner).
    """
    d = (b[0] - a[0], b[1] - a[1])
    best = max(_dot4(d, n) for n in NEIGHBOURS)
    nearest = [n for n in NEIGHBOURS if _dot4(d, n) == best]  # the side opposite the one the line enters by
    if len(nearest) == 1:
        return nearest[0]
    cube = (d[0], -d[0] - d[1], d[1])
    normal = (1, 0) if cube[2] != 0 or cube[0] == cube[1] else (0, -1)  # _crossed's normal, (1, -1, 0) or (0, 1, -1)
    shift = (normal[0] * side, normal[1] * side)
    return next(n for n in nearest if _cross_sign(d, n) == -_cross_sign(d, shift))


def _retreat_way(directions: list[Hex], sides: list[dict[str, Any]], clear: bool) -> Hex | None:
    """The one retreat direction of the lines shown: of the clear lines when one is clear, else of all; None when
    they give two (the side the players shift the line to decides)."""
    ways = {way for way, side in zip(directions, sides, strict=False) if not clear or not side["blocked_by"]}
    return ways.pop() if len(ways) == 1 else None


def _crossed(a: Hex, b: Hex, side: int) -> list[Hex]:
    """The hexes (a and b left out) whose inside the segment between the centres of a and b crosses, once the segment
    is shifted by an infinitesimal amount to one side (side = +1 or -1), in order from a. Exact: in cube coordinates a
    hex with centre c is the set |dx - dy| <= 1, |dy - dz| <= 1, |dz - dx| <= 1 (d = p - c), an affine image of the
    regular hexagon, and the shift is carried as a second, infinitesimal component of every number (compared
    lexicographically).
    """
    ca, cb = _cube(a), _cube(b)
    n = hex_distance(a, b)
    if n <= 1:
        return []
    direction = tuple(v - u for u, v in zip(ca, cb, strict=True))
    normal = (1, -1, 0) if direction[2] != 0 or direction[0] == direction[1] else (0, 1, -1)  # not parallel to the line
    candidates: set[Hex] = set()
    for i in range(n + 1):  # every hex the segment meets is within 2 of a hex the lerped points round to
        point = [Fraction(u) + Fraction(i, n) * d for u, d in zip(ca, direction, strict=True)]
        q, r = round(point[0]), round(point[2])
        for dq in range(-2, 3):
            for dr in range(-2, 3):
                if abs(dq + dr) <= 2:
                    candidates.add((q + dq, r + dr))
    candidates -= {a, b}
    pairs = ((0, 1), (1, 2), (2, 0))
    out = []
    for hex_ in candidates:
        cc = _cube(hex_)
        low: tuple[Any, ...] = (Fraction(0), Fraction(0))
        high: tuple[Any, ...] = (Fraction(1), Fraction(0))
        for i, j in pairs:
            # f(t) = (a_i - a_j - c_i + c_j) + t (d_i - d_j) + side*eps (n_i - n_j), kept strictly inside (-1, 1)
            const = Fraction(ca[i] - ca[j] - cc[i] + cc[j])
            slope = Fraction(direction[i] - direction[j])
            eps = Fraction(side * (normal[i] - normal[j]))
            if slope == 0:
                if not (Fraction(-1), Fraction(0)) < (const, eps) < (Fraction(1), Fraction(0)):
                    break
                continue
            ends = sorted(((bound - const) / slope, -eps / slope) for bound in (-1, 1))
            low, high = max(low, ends[0]), min(high, ends[1])
            if low >= high:
                break
        else:
            out.append((low, hex_))
    return [hex_ for _, hex_ in sorted(out)]


def _dice_table(data: GameData) -> dict[str, dict[str, Any]]:
    """Face -> who uses it, damage, retreat hexes, lore."""
    return {row["face"]: {k: row[k] for k in ("who", "damage", "retreat_hexes", "lore")} for row in data.table("battlelore/quickref-dice-results")}


def _exact(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def _chance(name: str, value: Fraction) -> dict[str, Any]:
    """An exact value as an output gives it: a float, and the fraction as text under `<name>_exact`."""
    return {name: float(value), f"{name}_exact": _exact(value)}


def _terrain_params(data: GameData) -> dict[str, dict[str, Any]]:
    return {name: data.params(entry_id) for name, entry_id in TERRAIN_ENTRIES.items()}


class Rules(Game):
    def __init__(self, data: GameData):
        super().__init__(data)
        self.PURSUE_RULE = data.ref("battlelore/pursue")
        self.SKIRMISH_RULE = data.ref("battlelore/skirmish")
        self.ADVANCE_RULE = data.ref("battlelore/advance")
        self.DICE_TABLE = _dice_table(data)  # face -> who uses it, damage, retreat hexes, lore; from battlelore/quickref-dice-results
        self.FACE_CHANCES = {
            face: Fraction(1, len(self.DICE_TABLE)) for face in self.DICE_TABLE
        }  # one side of the die per result of battlelore/quickref-dice-results (battlelore/clarify-dice-face-icons)
        self.TERRAIN = _terrain_params(data)  # terrain -> its params, from the terrain entries (battlelore/forest, battlelore/building, ...)
        self.FLYING_MELEE_PENALTY = data.param("battlelore/flying", "melee_dice_penalty_against")  # from battlelore/flying
        self.FLANKING_DICE = data.param("battlelore/flanking", "extra_dice")  # from battlelore/flanking
        self.FLANKING_MAX = data.param("battlelore/flanking", "max_extra_dice")
        self.RAGE_DICE_PER_DAMAGE = data.param("battlelore/rage", "extra_dice_per_damage")  # from battlelore/rage
        self.FURY_DICE = data.param("battlelore/fury-of-yllan", "extra_dice")  # from battlelore/fury-of-yllan
        self.RUNEBLADE_DICE = data.param("battlelore/runeblade", "dice")  # from battlelore/runeblade
        self.HEXES_PER_RETREAT = data.param("battlelore/retreat", "hexes_per_retreat")  # from battlelore/retreat
        self.DAMAGE_PER_UNPERFORMED_RETREAT = data.param("battlelore/retreat", "damage_per_unperformed_retreat")
        self.BUILDING_IGNORES_PER_COMBAT = data.param("battlelore/building", "damage_ignored_per_combat")  # from battlelore/building
        self.VP_TO_WIN = data.param("battlelore/winning-the-game", "victory_points_to_win")  # from battlelore/winning-the-game
        self.COMMAND_TENT_VP = data.param("battlelore/command-tent", "capture_victory_points")  # from battlelore/command-tent
        self.SCENARIOS_IN_CAMPAIGN = data.param("battlelore/campaign", "scenarios_in_campaign")  # from battlelore/campaign
        self.FIRST_SCENARIO_CARD = data.param("battlelore/campaign", "first_scenario_card")
        self.WINNER_CARD_DIGITS = [int(d) for d in data.param("battlelore/campaign", "winner_card_digits").split(",")]
        self.LOSER_CARD_DIGIT = data.param("battlelore/campaign", "loser_card_digit")
        self.CAMPAIGN_BONUS_PER_WIN = data.param(
            "battlelore/campaign-scoring", "bonus_vp_per_scenario_won_by_final_winner"
        )  # from battlelore/campaign-scoring
        self.DAMAGE_STEP_NOTE = data.ref("battlelore/clarify-damage-step")
        self.CAPS = {name: p["max_combat_dice"] for name, p in self.TERRAIN.items() if "max_combat_dice" in p}
        self.STOPS_RETREAT = {name for name, p in self.TERRAIN.items() if p.get("stops_retreat")}
        self.IMPASSABLE = {name for name, p in self.TERRAIN.items() if p.get("impassable")}
        self.IGNORES_DAMAGE = {name: p["damage_ignored_per_combat"] for name, p in self.TERRAIN.items() if "damage_ignored_per_combat" in p}
        self.PURSUE_MIN_HEXES = data.param("battlelore/pursue", "min_hexes")  # from battlelore/pursue
        self.PURSUE_ADDITIONAL_ATTACKS = data.param("battlelore/pursue", "additional_attacks")
        self.PURSUITS_PER_TURN = data.param("battlelore/pursue", "pursuits_per_turn")
        self.LORE_PER_UNSPENT_POINT = data.param(
            "battlelore/quickref-often-forgotten-rules", "lore_per_unspent_army_point"
        )  # from battlelore/quickref-often-forgotten-rules
        self.MAX_MUSTER_LORE = data.param("battlelore/quickref-often-forgotten-rules", "max_lore_for_unspent_army_points")
        self.BLOCKING = {name for name, p in self.TERRAIN.items() if p.get("blocking")}  # from the terrain entries
        self.RANGED_ON_HILL_IGNORES_UNITS = data.param(
            "battlelore/hill", "ranged_on_hill_ignores_units"
        )  # from battlelore/hill, read as battlelore/clarify-hill-line-of-sight
        sight = data.pick("battlelore/line-of-sight", ("units_block", "end_hexes_block"))
        self.UNITS_BLOCK = sight["units_block"]  # from battlelore/line-of-sight
        self.END_HEXES_BLOCK = sight["end_hexes_block"]
        self.HILL_NOTE = data.ref("battlelore/clarify-hill-line-of-sight")
        self.EDGE_NOTE = data.ref("battlelore/clarify-line-of-sight-along-two-edges")
        self.CORNER_NOTE = data.ref("battlelore/clarify-line-of-sight-through-corner")
        self.RETREAT_CORNER_NOTE = data.ref("battlelore/clarify-ranged-retreat-through-corner")
        self.MELEE_RANGE = data.param("battlelore/range", "melee_range")  # from battlelore/range
        self.COUNTERATTACK_RULE = data.ref("battlelore/counterattack")
        self.HEROIC = {  # the abilities and rules a heroic result spent for damage turns on, and the clarification
            name: data.ref(f"battlelore/{name}")
            for name in ("berserk", "poison", "fury-of-yllan", "ferocious", "spending-dice", "removing-figures", "clarify-heroic-damage")
        }
        self.STUN_RULE = data.ref("battlelore/stun")
        self.COMBAT_RULE = data.ref("battlelore/combat")
        self.MELEE_RULE = data.ref("battlelore/melee")
        self.RANGED_RULE = data.ref("battlelore/ranged")
        self.RANGE_RULE = data.ref("battlelore/range")
        self.MOVEMENT_RULE = data.ref("battlelore/movement")
        self.CUMBERSOME_RULE = data.ref("battlelore/cumbersome")
        self.FLYING_RULE = data.ref("battlelore/flying")
        self.PHASES_RULE = data.ref("battlelore/quickref-phases-and-steps")
        self.ENDS_MOVEMENT = {name for name, p in self.TERRAIN.items() if p.get("ends_movement")}  # from the terrain entries

    def _terrain(self, name: str) -> str:
        if name not in self.TERRAIN and name != "off_board":
            raise REFUSALS("unknown-terrain", terrain=name, terrains=list(self.TERRAIN), edge="off_board")
        return name

    def _roll(
        self,
        roller: DiceUnit,
        victim: DiceUnit,
        attack_type: str,
        flankers: int,
        lore_cards: list[Any],
        other: int,
    ) -> dict[str, Any]:
        """Dice of one combat roll: terrain first, then modifiers (battlelore/modifiers)."""
        own, theirs = self._terrain(roller.get("terrain", "plains")), self._terrain(victim.get("terrain", "plains"))
        if "dice" not in roller:
            raise REFUSALS("combat-dice-missing")
        unknown = [c for c in lore_cards if c not in ("runeblade", "fury_of_yllan")]
        if unknown:
            raise REFUSALS("lore-cards-without-dice-effect", cards=unknown, field="other_modifiers")
        caps, ignored = self._terrain_caps(((roller, own), (victim, theirs)))
        if "runeblade" in lore_cards:
            return {
                "dice": self.RUNEBLADE_DICE,
                "terrain_cap": None,
                "terrain_cap_ignored": min(caps + ignored) if caps or ignored else None,
                "modifiers": [{"runeblade": self.RUNEBLADE_DICE}],
                "normal_dice": self._roll(roller, victim, attack_type, flankers, [c for c in lore_cards if c != "runeblade"], other)["dice"],
            }
        dice = roller["dice"]
        cap = min(caps) if caps else None
        if cap is not None:
            dice = min(dice, cap)
        modifiers = self._modifiers(roller, victim, attack_type, flankers, lore_cards, other)
        dice += sum(v for m in modifiers for v in m.values())
        return {
            "dice": max(dice, 0),
            "terrain_cap": cap,
            "terrain_cap_ignored": min(ignored) if ignored and cap is None else None,
            "modifiers": modifiers,
        }

    def _terrain_caps(self, units_and_terrains: tuple[tuple[DiceUnit, str], ...]) -> tuple[list[int], list[int]]:
        """The dice limits of the two units' hexes: those that apply, and those a Flying unit lifts from its own hex."""
        caps: list[int] = []
        ignored: list[int] = []
        for unit, terrain in units_and_terrains:
            if terrain in self.CAPS:
                (ignored if unit.get("flying") else caps).append(self.CAPS[terrain])
        return caps, ignored

    def _modifiers(
        self, roller: DiceUnit, victim: DiceUnit, attack_type: str, flankers: int, lore_cards: list[Any], other: int
    ) -> list[dict[str, int]]:
        """The dice added or taken away once the terrain has limited the roll (battlelore/modifiers), each by its name."""
        modifiers = []
        if attack_type == "melee" and victim.get("flying"):
            modifiers.append({"melee_against_flying": -self.FLYING_MELEE_PENALTY})
        if flankers > 0:
            modifiers.append({"flanking": min(flankers * self.FLANKING_DICE, self.FLANKING_MAX)})
        if roller.get("rage") and roller.get("damage_suffered", 0):
            modifiers.append({"rage": roller["damage_suffered"] * self.RAGE_DICE_PER_DAMAGE})
        if "fury_of_yllan" in lore_cards:
            modifiers.append({"fury_of_yllan": self.FURY_DICE})
        if other:
            modifiers.append({"other": other})
        return modifiers

    @check("combat_dice")
    def combat_dice(
        self,
        attacker: DiceUnit,
        target: DiceUnit,
        attack_type: str,
        friendly_flankers_adjacent_to_target: int = 0,
        lore_cards: list[Any] | None = None,
        other_modifiers: int = 0,
        counterattack: CounterattackDice | None = None,
    ) -> dict[str, Any]:
        """`attacker` and `target`: {dice (the combat value on the reference card), terrain, flying, rage, damage_suffered}.
        `friendly_flankers_adjacent_to_target` counts the *other* friendly units with "Flanking" next to the target.
        Terrain limits apply first (a Flying unit lifts the limit of its own hex, for its rolls and rolls against it),
        then the modifiers. "Runeblade" replaces the roll with its own dice, which nothing changes. `counterattack`
        {attack_type, friendly_flankers_adjacent_to_target, lore_cards, other_modifiers} adds the target's roll back.
        """
        result = self._roll(attacker, target, attack_type, friendly_flankers_adjacent_to_target, lore_cards or [], other_modifiers)
        if counterattack is not None:
            back = self._roll(
                target,
                attacker,
                counterattack.get("attack_type", "melee"),
                counterattack.get("friendly_flankers_adjacent_to_target", 0),
                counterattack.get("lore_cards", []),
                counterattack.get("other_modifiers", 0),
            )
            result.update({f"counterattack_{k}": v for k, v in back.items()})
        return result

    def _flying_retreat(self, retreats: int, path: list[PathHex]) -> dict[str, Any]:
        """A Flying unit passes over units and terrain: it ends on the farthest free hex it can reach."""
        best = 0
        for k in range(1, retreats + 1):
            h = path[k - 1] if k - 1 < len(path) else None
            if h is None:
                raise REFUSALS("path-too-short-for-flying", hexes=len(path), retreats=retreats)
            if self._terrain(h.get("terrain", "plains")) == "off_board":
                break
            if not h.get("unit"):
                best = k
        left = retreats - best
        support = left > 0 and best < len(path) and path[best].get("unit") == "friendly"
        return {
            "hexes": best * self.HEXES_PER_RETREAT,
            "unperformed": 0 if support else left,
            "support": support,
            "stopped_by": None if not left else "no unoccupied hex",
        }

    def _retreat_path(self, unit: RetreatingUnit, retreats: int, path: list[PathHex]) -> dict[str, Any]:
        """Walk the retreat; returns hexes moved, retreats not carried out, support, and why it stopped."""
        if retreats <= 0:
            return {"hexes": 0, "unperformed": 0, "support": False, "stopped_by": None}

        def hex_at(i: int) -> PathHex | None:
            return path[i] if i < len(path) else None

        def supported(i: int) -> bool:
            h = hex_at(i)
            return h is not None and h.get("unit") == "friendly"

        if unit.get("stunned"):
            support = supported(0)
            return {"hexes": 0, "unperformed": 0 if support else retreats, "support": support, "stopped_by": "stunned"}
        if unit.get("flying"):
            return self._flying_retreat(retreats, path)
        moved, left, stopped = 0, retreats, None
        while left:
            h = hex_at(moved)
            if h is None:
                raise REFUSALS("path-too-short", hexes=len(path), needed=moved + 1)
            terrain = self._terrain(h.get("terrain", "plains"))
            if h.get("unit") == "friendly":
                return {"hexes": moved * self.HEXES_PER_RETREAT, "unperformed": 0, "support": True, "stopped_by": "friendly unit"}
            if terrain == "off_board" or h.get("unit") == "enemy" or terrain in self.IMPASSABLE or (unit.get("cumbersome") and terrain == "building"):
                stopped = "enemy unit" if h.get("unit") == "enemy" else ("cumbersome" if terrain == "building" else terrain)
                break
            moved, left = moved + 1, left - 1
            if terrain in self.STOPS_RETREAT and left:
                stopped = terrain
                if supported(moved):
                    return {"hexes": moved * self.HEXES_PER_RETREAT, "unperformed": 0, "support": True, "stopped_by": terrain}
                break
        return {"hexes": moved * self.HEXES_PER_RETREAT, "unperformed": left, "support": False, "stopped_by": stopped}

    def _results_left(self, results: dict[str, Any], spent: dict[str, Any]) -> dict[str, Any]:
        """The roll's results once those `spent` on other effects are taken away (`results` is changed); only the
        faces of the dice-results table (battlelore/quickref-dice-results)."""
        for face, n in spent.items():
            if n > results.get(face, 0):
                raise REFUSALS("spent-more-than-rolled", spent=n, face=face, rolled=results.get(face, 0))
            if n:
                results[face] -= n
        unknown = [f for f in results if f not in self.DICE_TABLE]
        if unknown:
            raise REFUSALS("unknown-faces", faces=unknown, known=list(self.DICE_TABLE))
        return results

    @check("damage_and_retreat")
    def damage_and_retreat(
        self,
        target: RetreatingUnit,
        results: dict[str, Any] | None = None,
        spent: dict[str, Any] | None = None,
        attack_type: str = "melee",
        attacker_weakened: bool = False,
        damage: int = 0,
        retreats: int = 0,
        path: list[PathHex] | None = None,
        attacker_faction: str | None = None,
    ) -> dict[str, Any]:
        """`results` {face: count} are read with the dice-results table (after taking away `spent` results); `damage` and
        `retreats` add effects from elsewhere. `target`: {terrain, flying, stunned, steady, ignore_retreats,
        ignore_damage, cumbersome, health}. `path`: the hexes directly away from the attacker, nearest first, each
        {terrain, unit: friendly | enemy}; terrain "off_board" for the board edge.
        """
        results, path = self._results_left(dict(results or {}), spent or {}), path or []
        users = {  # who uses a face's damage (the dice-results table's `who`) -> whether this roll's unit does
            "melee_unit": attack_type == "melee",
            "non_weakened_melee_unit": attack_type == "melee" and not attacker_weakened,
            "ranged_unit": attack_type == "ranged",
            "any": True,
            "rolling_player": True,
            "unit_abilities": True,
        }
        dealt = damage + sum(n * self.DICE_TABLE[f]["damage"] for f, n in results.items() if users[self.DICE_TABLE[f]["who"]])
        required = retreats + sum(n * self.DICE_TABLE[f]["retreat_hexes"] for f, n in results.items())
        lore = sum(n * self.DICE_TABLE[f]["lore"] for f, n in results.items())
        terrain = self._terrain(target.get("terrain", "plains"))
        # step 5-6: ignore damage, deal damage
        building = self.IGNORES_DAMAGE.get(terrain, 0)
        ignored = min(dealt, building + target.get("ignore_damage", 0))
        building_left = building - min(building, ignored)
        taken = dealt - ignored
        health = target.get("health")
        destroyed = health is not None and taken >= health
        # step 7-8: ignore retreats, retreat
        ignore_retreats = target.get("steady", 0) + target.get("ignore_retreats", 0)
        retreats_ignored = 0 if destroyed else min(required, ignore_retreats)
        walk = self._retreat_path(target, 0 if destroyed else required - retreats_ignored, path)
        retreat_damage = walk["unperformed"] * self.DAMAGE_PER_UNPERFORMED_RETREAT
        final_terrain = terrain if walk["hexes"] == 0 else path[walk["hexes"] // self.HEXES_PER_RETREAT - 1].get("terrain", "plains")
        retreat_damage_ignored = min(retreat_damage, self.IGNORES_DAMAGE.get(final_terrain, 0) if final_terrain != terrain else building_left)
        before_retreat = taken
        taken += retreat_damage - retreat_damage_ignored
        result = {
            "damage_dealt": dealt,
            "damage_before_retreat": before_retreat,
            "damage_ignored": ignored + retreat_damage_ignored,
            "damage_taken": taken,
            "retreats_required": required,
            "retreats_ignored": retreats_ignored,
            "hexes_retreated": walk["hexes"],
            "support": walk["support"],
            "retreat_stopped_by": walk["stopped_by"],
            "retreats_not_carried_out": walk["unperformed"],
            "lore_gained": lore,
            "clarification": self.DAMAGE_STEP_NOTE,
        }
        if health is not None:
            result.update(health_left=max(health - taken, 0), destroyed=taken >= health)
        return result

    # -- the odds of a roll: each face's chance, and what a roll of an attack's dice is worth on average ---------

    @check("face_probability")
    def face_probability(self, face: str) -> dict[str, Any]:
        """The chance that one die shows `face`. The guide names six results (battlelore/dice-results) and prints them
        one row each in the dice-results table; the die has six sides (battlelore/clarify-dice-face-icons), so each
        result is on one side: a chance of 1 in as many sides as the table has rows."""
        if face not in self.FACE_CHANCES:
            raise REFUSALS("unknown-face", face=face, faces=list(self.FACE_CHANCES))
        chance = self.FACE_CHANCES[face]
        return {"probability": float(chance), "exact": _exact(chance), "sides": len(self.FACE_CHANCES)}

    @check("expected_hits")
    def expected_hits(self, attacker: ExpectedAttacker, target: ExpectedTarget, attack_type: str, attacker_weakened: bool = False) -> dict[str, Any]:
        """What one combat roll is worth on average: the dice it rolls (`combat_dice`: terrain limits, Flying), the
        faces that deal damage in this attack and the damage they deal (`damage_and_retreat`, one result at a time),
        then over every roll of those dice, exactly: the expected hits (damage dealt), the chance of at least one
        hit, and the expected damage the target takes once its terrain has ignored its share (a building: 1 per
        combat). Morale results are not counted: a retreat deals damage only when it cannot be carried out.
        `attacker` {dice, terrain, flying}, `target` {terrain, flying}."""
        terrain = self._terrain(target.get("terrain", "plains"))
        if terrain in self.IMPASSABLE and not target.get("flying"):
            raise REFUSALS("no-unit-in-impassable-terrain", rule=TERRAIN_ENTRIES[terrain], terrain=terrain)
        roll = self.combat_dice(_dice_view(attacker), _dice_view(target), attack_type)
        dealt_by_face = {  # one result of each face, the target free to retreat over plains
            face: self.damage_and_retreat(
                target={},
                results={face: 1},
                attack_type=attack_type,
                attacker_weakened=attacker_weakened,
                path=[{}] * self.DICE_TABLE[face]["retreat_hexes"],
            )["damage_dealt"]
            for face in self.FACE_CHANCES
        }
        one_die: dict[int, Fraction] = {}
        for face, damage in dealt_by_face.items():
            one_die[damage] = one_die.get(damage, Fraction(0)) + self.FACE_CHANCES[face]
        dealt = {0: Fraction(1)}  # damage dealt by the dice rolled so far -> its chance
        for _ in range(roll["dice"]):
            added: dict[int, Fraction] = {}
            for total, chance in dealt.items():
                for damage, face_chance in one_die.items():
                    added[total + damage] = added.get(total + damage, Fraction(0)) + chance * face_chance
            dealt = added
        taken = {d: self.damage_and_retreat(target={"terrain": terrain}, damage=d)["damage_taken"] for d in dealt}
        return {
            "dice": roll["dice"],
            "terrain_cap": roll["terrain_cap"],
            "hit_faces": [face for face, damage in dealt_by_face.items() if damage],
            **_chance("expected_hits", sum((d * chance for d, chance in dealt.items()), Fraction(0))),
            **_chance("at_least_one_hit", 1 - dealt.get(0, Fraction(0))),
            **_chance("expected_damage", sum((taken[d] * chance for d, chance in dealt.items()), Fraction(0))),
        }

    @check("victory_points")
    def victory_points(self, banner_hexes_occupied: list[Any] | None = None, scenario_vp: int = 0, command_tents_captured: int = 0) -> dict[str, Any]:
        """`banner_hexes_occupied`: the number printed on each banner marker in a hex a friendly unit occupies.
        `scenario_vp`: points for the scenario card's conditions (the cards are not in the guide).
        """
        banners = sum(banner_hexes_occupied or [])
        tents = command_tents_captured * self.COMMAND_TENT_VP
        return {
            "banner_vp": banners,
            "scenario_vp": scenario_vp,
            "command_tent_vp": tents,
            "vp_gained": banners + scenario_vp + tents,
        }

    @check("victory")
    def victory(self, victory_points: dict[str, Any], moment: str, units_left: dict[str, Any] | None = None) -> dict[str, Any]:
        """`moment`: "start_of_first_player_turn" (the only moment points are checked) or "other".
        `units_left`: each player's units on the board; a player with none has been routed.
        """
        players = list(victory_points)
        if len(players) != 2:
            raise REFUSALS("two-players")
        if units_left is not None:
            routed = [p for p in players if units_left.get(p, 1) == 0]
            if len(routed) == 2:
                raise REFUSALS("both-armies-destroyed")
            if routed:
                winner = next(p for p in players if p not in routed)
                return {"game_ends": True, "winner": winner, "condition": "all_enemy_units_destroyed", "points_checked": False}
        if moment != "start_of_first_player_turn":
            return {"game_ends": False, "winner": None, "condition": None, "points_checked": False}
        a, b = players
        leaders = [p for p, q in ((a, b), (b, a)) if victory_points[p] >= self.VP_TO_WIN and victory_points[p] > victory_points[q]]
        if leaders:
            return {"game_ends": True, "winner": leaders[0], "condition": "victory_points", "points_checked": True}
        return {"game_ends": False, "winner": None, "condition": None, "points_checked": True}

    @check("campaign")
    def campaign(self, scenarios: list[Scenario]) -> dict[str, Any]:
        """`scenarios`: in order, each {vp: {player: points}, winner}. Scenario cards: game 1 both play the first card;
        afterwards the previous winner takes the next letter with either digit, the loser that letter with the loser's digit.
        """
        if len(scenarios) != self.SCENARIOS_IN_CAMPAIGN:
            raise REFUSALS("campaign-length", scenarios=self.SCENARIOS_IN_CAMPAIGN, given=len(scenarios))
        players = list(scenarios[0]["vp"])
        if len(players) != 2 or any(set(s["vp"]) != set(players) or s["winner"] not in players for s in scenarios):
            raise REFUSALS("campaign-players")
        cards = self._scenario_cards(scenarios, players)
        vp_sum = {p: sum(s["vp"][p] for s in scenarios) for p in players}
        last = scenarios[-1]["winner"]
        bonus = {p: (self.CAMPAIGN_BONUS_PER_WIN * sum(1 for s in scenarios if s["winner"] == p) if p == last else 0) for p in players}
        total = {p: vp_sum[p] + bonus[p] for p in players}
        a, b = players
        if total[a] != total[b]:
            winner, decided = (a if total[a] > total[b] else b), "total_vp"
        else:
            winner, decided = last, "tie_break_last_scenario_winner"
        return {
            "scenario_cards": cards,
            "vp_sum": vp_sum,
            "bonus": bonus,
            "total": total,
            "campaign_winner": winner,
            "decided_by": decided,
        }

    def _scenario_cards(self, scenarios: list[Scenario], players: list[str]) -> list[dict[str, list[str]]]:
        """The scenario cards each player may play, scenario by scenario (battlelore/campaign): both the first card in
        the first; afterwards the next letter, with either winner's digit for the previous scenario's winner and the
        loser's digit for the other player."""
        cards = [{p: [self.FIRST_SCENARIO_CARD] for p in players}]
        letter = self.FIRST_SCENARIO_CARD[0]
        for previous in scenarios[:-1]:
            letter = chr(ord(letter) + 1)
            winner = previous["winner"]
            cards.append(
                {p: [f"{letter}{d}" for d in self.WINNER_CARD_DIGITS] if p == winner else [f"{letter}{self.LOSER_CARD_DIGIT}"] for p in players}
            )
        return cards

    def _path_problems(
        self, ability: str, x: int, min_hexes: int, path: list[Any], start_hex: str | None, target_hex: str | None
    ) -> list[dict[str, Any]]:
        """What is wrong with the hexes an ability move enters: its length, and for Pursue its first and last hexes."""
        problems = []
        rule = self.PURSUE_RULE if ability == "pursue" else self.SKIRMISH_RULE
        if not min_hexes <= len(path) <= x:
            low = f"at least {min_hexes} and " if min_hexes else ""
            problems.append(
                {
                    "code": "path_length",
                    "rule": rule,
                    "message": f"{ability.capitalize()} {x} moves {low}at most {x} hex(es), not {len(path)}",
                }
            )
        if ability != "pursue":
            return problems
        if target_hex is None:
            raise REFUSALS("pursuit-needs-target-hex", field="target_hex")
        if path and path[0] != target_hex:
            problems.append(
                {
                    "code": "target_hex_not_first",
                    "rule": rule,
                    "message": f"the pursuing unit must enter the target's hex {target_hex} first",
                }
            )
        if start_hex is not None and start_hex in path:
            problems.append(
                {
                    "code": "returns_to_start",
                    "rule": rule,
                    "message": f"the pursuing unit may not return to its starting hex {start_hex}",
                }
            )
        return problems

    @check("ability_move")
    def ability_move(
        self,
        ability: str,
        x: int,
        unit_ordered: bool = True,
        moment: str | None = None,
        target_destroyed_or_retreated: bool | None = None,
        counterattacking: bool = False,
        pursuits_this_turn: int = 0,
        start_hex: str | None = None,
        target_hex: str | None = None,
        path: list[Any] | None = None,
        board: Board | None = None,
    ) -> dict[str, Any]:
        """`x`: the number next to the ability's name on the unit's reference card (the guide gives no values). Pursue is
        used instead of an advance, so it needs what an advance needs (`target_destroyed_or_retreated`, not
        `counterattacking`) and at most params.pursuits_per_turn pursuits per turn (`pursuits_this_turn` made before).
        Skirmish needs an ordered unit (`unit_ordered`) and, if `moment` is given, "after_attack_step". `path`: the hexes
        entered, in order (labels of the caller's choosing; adjacency and terrain are not checked); Pursue must enter
        `target_hex` first and may not come back to `start_hex`. Or `board` {start, path, target, terrain, units, unit}
        in axial hexes, as for `move`: then the path also obeys the general movement rules (battlelore/movement), which
        apply to every kind of movement.
        """
        if board is not None:
            if path is not None or start_hex is not None or target_hex is not None:
                raise REFUSALS("path-given-twice", fields=["path", "start_hex", "target_hex"])
            label = ",".join
            path = [label(map(str, h)) for h in board["path"]]
            start_hex = label(map(str, board["start"]))
            target_hex = label(map(str, board["target"])) if "target" in board else None
        if x < 1:
            raise REFUSALS("x-below-one", ability=ability, x=x)
        problems = []

        def problem(code: str, rule: str, message: str) -> None:
            problems.append({"code": code, "rule": rule, "message": message})

        if ability == "pursue":
            result = {
                "ability": ability,
                "timing": "instead_of_advance",
                "min_hexes": self.PURSUE_MIN_HEXES,
                "max_hexes": x,
                "additional_attacks": self.PURSUE_ADDITIONAL_ATTACKS,
                "additional_attack_optional": True,
                "must_enter_target_hex_first": True,
                "may_return_to_start_hex": False,
            }
            if target_destroyed_or_retreated is False:
                problem(
                    "cannot_advance",
                    self.ADVANCE_RULE,
                    "Pursue replaces an advance, and a unit may advance only when the adjacent target was destroyed or forced to retreat",
                )
            if counterattacking:
                problem("counterattacking", self.ADVANCE_RULE, "a counterattacking unit cannot advance, so it cannot pursue instead")
            if pursuits_this_turn >= self.PURSUITS_PER_TURN:
                problem("already_pursued", self.PURSUE_RULE, f"a unit may pursue {self.PURSUITS_PER_TURN} time(s) per turn")
        elif ability == "skirmish":
            result = {"ability": ability, "timing": "after_attack_step", "min_hexes": 0, "max_hexes": x, "additional_attacks": 0}
            if not unit_ordered:
                problem("not_ordered", self.SKIRMISH_RULE, "only a unit that was ordered may move with Skirmish")
            if moment not in (None, "after_attack_step"):
                problem("wrong_moment", self.SKIRMISH_RULE, "Skirmish moves the unit after the attack step")
        else:
            raise REFUSALS("unknown-ability", ability=ability, pursue="pursue", skirmish="skirmish")
        if path is not None:
            problems += self._path_problems(ability, x, result["min_hexes"], path, start_hex, target_hex)
            result["hexes_moved"] = len(path)
        if board is not None:
            moved = self.move(board["start"], board["path"], None, board.get("unit"), board.get("terrain"), board.get("units"))
            problems += [{k: p[k] for k in ("code", "rule", "message")} for p in moved["problems"]]
        result.update(allowed=not problems, problems=problems)
        return result

    @check("multiple_copies")
    def multiple_copies(
        self, copies_of_game: int, factions: list[Any], position_cards_per_copy: dict[str, Any], army: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """`position_cards_per_copy`: {faction: {unit: position cards in one copy of the game}}; the guide has no
        component list, so these come from the caller. `army` (optional): {faction: {unit: count}} to check against
        the position cards of all copies.
        """
        if copies_of_game < 1:
            raise REFUSALS("no-copy-of-the-game")
        if len(factions) != 2:
            raise REFUSALS("two-factions")
        if factions[0] == factions[1]:
            raise REFUSALS("same-faction", faction=factions[0])
        missing = [f for f in factions if f not in position_cards_per_copy]
        if missing:
            raise REFUSALS("position-cards-missing", factions=missing)
        max_units = {f: {unit: n * copies_of_game for unit, n in position_cards_per_copy[f].items()} for f in factions}
        result = {"same_faction_for_both_players": False, "max_units": max_units}
        if army is not None:
            over = []
            for faction, units in army.items():
                if faction not in max_units:
                    raise REFUSALS("not-a-faction-in-play", faction=faction, factions=factions)
                for unit, count in units.items():
                    allowed = max_units[faction].get(unit, 0)
                    if count > allowed:
                        over.append({"faction": faction, "unit": unit, "count": count, "position_cards": allowed})
            result.update(army_legal=not over, over_limit=over)
        return result

    @check("muster_lore")
    def muster_lore(self, unspent_army_points: dict[str, Any]) -> dict[str, Any]:
        """`unspent_army_points`: {player: army points left unspent after army building} (the army-point budget is
        not in the guide).
        """
        used = {p: min(n, self.MAX_MUSTER_LORE // self.LORE_PER_UNSPENT_POINT) for p, n in unspent_army_points.items()}
        return {
            "lore_gained": {p: n * self.LORE_PER_UNSPENT_POINT for p, n in used.items()},
            "unspent_points_without_lore": {p: n - used[p] for p, n in unspent_army_points.items()},
            "cap": self.MAX_MUSTER_LORE,
        }

    @check("line_of_sight")
    def line_of_sight(
        self,
        attacker: list[Any],
        target: list[Any],
        terrain: list[SightSpot] | None = None,
        units: list[Any] | None = None,
        attacker_ranged: bool = True,
        min_range: int | None = None,
        max_range: int | None = None,
        retreats: int | None = None,
    ) -> dict[str, Any]:
        """Hexes are axial (q, r): the six neighbours of (q, r) are (q+1, r), (q-1, r), (q, r+1), (q, r-1),
        (q+1, r-1), (q-1, r+1). The line joins the two hex centres; the hexes it crosses are found exactly. Where it
        runs along a hex edge (or through a corner) the two sides differ: it is shifted once, as a whole, to one side
        (battlelore/clarify-line-of-sight-along-two-edges, battlelore/clarify-line-of-sight-through-corner), and line
        of sight is clear if either side is clear. `min_range` and `max_range`: the attacking unit's, from its reference
        card (not in the sources): a ranged unit may target a unit in its line of sight within that band, an adjacent
        one only with a minimum range of 1 (battlelore/range, battlelore/ranged); a melee unit only an adjacent one.
        The retreat direction is straight away from the attacker, through the side opposite the one the line enters
        the target's hex by (battlelore/retreat); where the line reaches it at a corner, the side the line is shifted to
        decides (battlelore/clarify-ranged-retreat-through-corner); `retreats` gives the hexes of that many retreats.
        """
        a, b = (attacker[0], attacker[1]), (target[0], target[1])
        if a == b:
            raise REFUSALS("same-hex")
        ground = self._board_terrain(terrain)
        on_hill = ground.get(a) == "hill"
        ignore_units = bool(attacker_ranged and on_hill and self.RANGED_ON_HILL_IGNORES_UNITS)
        blocking_units = {(u[0], u[1]) for u in units or []} if self.UNITS_BLOCK and not ignore_units else set()
        ends = set() if self.END_HEXES_BLOCK else {a, b}
        sides = [self._sight_line(_crossed(a, b, side), ground, blocking_units, ends) for side in (1, -1)]
        directions = [retreat_direction(a, b, side) for side in (1, -1)]
        shifted = sides[0]["hexes"] != sides[1]["hexes"]
        d = [v - u for u, v in zip(_cube(a), _cube(b), strict=True)]
        along_edge = shifted and len(set(d)) < len(d)  # a line along edges: two equal cube components, as (2, -1, -1)
        shown = 2 if shifted else 1  # both sides where they differ
        clear = any(not s["blocked_by"] for s in sides)
        distance = hex_distance(a, b)
        return {
            "range": distance,
            "line_of_sight": clear,
            "runs_along_edge": along_edge,
            "through_corner": shifted and not along_edge,
            "sides": sides[:shown],
            "units_ignored": ignore_units,
            "clarifications": self._sight_notes(on_hill and attacker_ranged, along_edge, shifted, directions[:shown]),
            **self._range_band(distance, clear, attacker_ranged, min_range, max_range),
            **self._sight_retreat(b, directions[:shown], sides, clear, retreats),
        }

    def _board_terrain(self, terrain: list[SightSpot] | list[TerrainSpot] | None) -> dict[Hex, str]:
        """The terrain of each hex listed (the others are plains); a hex may be given one terrain only."""
        ground: dict[Hex, str] = {}
        for spot in terrain or []:
            name = self._terrain(spot["terrain"])
            where = (spot["hex"][0], spot["hex"][1])
            if ground.get(where, name) != name:
                raise REFUSALS("two-terrains", hex=list(where))
            ground[where] = name
        return ground

    def _sight_line(self, hexes: list[Hex], ground: dict[Hex, str], blocking_units: set[Hex], ends: set[Hex]) -> dict[str, Any]:
        """One line of sight, shifted to one side: the hexes it crosses (`_crossed`) and what blocks it
        (battlelore/line-of-sight): blocking terrain, else a unit that blocks (none from a ranged unit on a hill); the
        attacker's and target's own hexes (`ends`) do not block."""
        found = []
        for h in hexes:
            if h in ends:
                continue
            if ground.get(h) in self.BLOCKING:
                found.append({"hex": list(h), "by": ground[h]})
            elif h in blocking_units:
                found.append({"hex": list(h), "by": "unit"})
        return {"hexes": [list(h) for h in hexes], "blocked_by": found}

    def _sight_notes(self, ranged_on_hill: bool, along_edge: bool, shifted: bool, directions: list[Hex]) -> list[str]:
        """The clarifications a line of sight followed: the hill's, the edge's or the corner's, and the retreat's
        through a corner when the two shifted lines give two retreat directions."""
        notes = [self.HILL_NOTE] if ranged_on_hill else []
        notes += [self.EDGE_NOTE] if along_edge else [self.CORNER_NOTE] if shifted else []
        if len(set(directions)) > 1:  # the line reaches the target's hex at a corner: the shift decides
            notes.append(self.RETREAT_CORNER_NOTE)
        return notes

    def _sight_retreat(self, target: Hex, directions: list[Hex], sides: list[dict[str, Any]], clear: bool, retreats: int | None) -> dict[str, Any]:
        """The retreat directions of the lines shown, and the one the target retreats along with the hexes of
        `retreats` retreats, where the lines agree on it (`_retreat_way`)."""
        way = _retreat_way(directions, sides, clear)
        return {
            "retreat_directions": [list(w) for w in directions],
            "retreat_direction": None if way is None else list(way),
            "retreat_hexes": None if way is None else self._retreat_hexes(target, way, retreats),
        }

    def _retreat_hexes(self, start: Hex, way: Hex, retreats: int | None) -> list[Any] | None:
        """The hexes `retreats` retreats go through from `start`, one per retreat (battlelore/retreat), nearest first."""
        if retreats is None:
            return None
        step = self.HEXES_PER_RETREAT
        return [[start[0] + way[0] * step * k, start[1] + way[1] * step * k] for k in range(1, retreats + 1)]

    def _range_band(self, distance: int, clear: bool, ranged: bool, low: int | None, high: int | None) -> dict[str, Any]:
        """Whether a target at `distance` is within the attacking unit's range: a melee unit's is 1; a ranged unit's is
        the band on its reference card, given as min_range and max_range (the sources print none)."""
        if not ranged:
            if low is not None or high is not None:
                raise REFUSALS("melee-unit-range", rule=self.RANGE_RULE, range=self.MELEE_RANGE, low="min_range", high="max_range")
            in_range: bool | None = distance == self.MELEE_RANGE
            return {"in_range": in_range, "may_target": in_range, "range_needs": []}
        if low is None or high is None:
            needs = [name for name, value in (("min_range", low), ("max_range", high)) if value is None]
            return {"in_range": None, "may_target": False if not clear else None, "range_needs": needs}
        if low > high:
            raise REFUSALS("min-above-max", rule=self.RANGE_RULE, low=low, high=high)
        in_range = low <= distance <= high
        return {"in_range": in_range, "may_target": in_range and clear, "range_needs": []}

    def _roll_results(self, refusal: str, dice: int, results: dict[str, Any]) -> None:
        """One result per die rolled (battlelore/combat, step 2); `refusal` names the roller."""
        rolled = sum(results.values())
        if rolled != dice:
            raise REFUSALS(refusal, rule=self.COMBAT_RULE, dice=dice, rolled=rolled)

    def _weakened(self, unit: AttackingUnit | AttackedUnit, health_left: int | None) -> bool:
        """A unit with 1 figure left is weakened, unless its figures are damage-token units (battlelore/weakened-unit)."""
        return health_left == 1 and not unit.get("damage_tokens")

    @check("attack")
    def attack(
        self,
        attacker: AttackingUnit,
        target: AttackedUnit,
        attack_type: str,
        results: dict[str, int],
        adjacent: bool | None = None,
        spent: dict[str, int] | None = None,
        path: list[PathHex] | None = None,
        friendly_flankers_adjacent_to_target: int = 0,
        lore_cards: list[str] | None = None,
        other_modifiers: int = 0,
        counterattack: Counterattack | None = None,
        range: int | None = None,  # the rules' word (battlelore/range); shadows the builtin here only
        min_range: int | None = None,
        max_range: int | None = None,
        heroic_damage: HeroicDamage | None = None,
    ) -> dict[str, Any]:
        """A whole attack (battlelore/combat): the dice (`combat_dice`), the roll's `results` (one per die, after
        rerolls), heroic results spent for damage (`heroic_damage` {berserk, poison, fury_of_yllan}: the effect each is
        spent on, the player's choice), damage and retreat (`damage_and_retreat`, with `path` the hexes behind the
        target), then whether the target may counterattack (battlelore/counterattack; a Ferocious target forced to
        retreat does so before it retreats) and with how many dice - its own dice, in its hex, with the damage just
        suffered (Rage) - and the counterattack itself, always against the attacking unit, when `counterattack`
        {results, spent, heroic_damage, path, attack_type, ...} gives its roll (`path`: the hexes behind the attacker);
        the figures Berserk removes; last, whether the attacker may advance.
        Units: {dice, health, terrain, flying, rage, damage_suffered, damage_tokens, stunned, steady, ignore_retreats,
        ignore_damage, cumbersome, berserk, poisoned, ferocious}; `health` is the figures (or health) left.
        `adjacent`: whether the two units are in adjacent hexes (a melee attack needs it; default true for melee).
        `range`: the hexes from the attacker to the target (battlelore/range); for a ranged attack with `min_range` and
        `max_range` from the unit's reference card it must lie in that band (battlelore/ranged).
        """
        adjacent = self._attack_range(attack_type, adjacent, range, min_range, max_range)
        if attack_type == "melee" and not adjacent:
            raise REFUSALS("melee-target-not-adjacent", rule=self.MELEE_RULE)
        if attacker.get("stunned"):
            raise REFUSALS("stunned-cannot-attack", rule=self.STUN_RULE)
        roll = self.combat_dice(
            _dice_view(attacker),
            _dice_view(target),
            attack_type,
            friendly_flankers_adjacent_to_target,
            lore_cards,
            other_modifiers,
        )
        self._roll_results("attacker-results-count", roll["dice"], results)
        strike = Strike(attack_type, results, spent, path, lore_cards, heroic_damage)
        hit = self._strike(attacker, target, strike, self._weakened(attacker, attacker.get("health")))
        before_retreat = self._ferocious(target, hit, adjacent)
        reasons = self._counterattack_reasons(target, hit, adjacent, before_retreat)
        attacker, berserk_kills = self._after_berserk(attacker, strike)
        if berserk_kills:  # its figures removed after the attack, before the counterattack (an attack of its own)
            reasons.append(_cannot_counterattack("attacker_destroyed", self.HEROIC["berserk"]))
        answer: dict[str, Any] = {
            "dice": roll,
            "attack": hit,
            "target_destroyed": hit["destroyed"],
            "target_left_its_hex": hit["hexes_retreated"] > 0,
            "may_counterattack": not reasons,
            "counterattack_not_allowed": reasons,
            "counterattack_before_retreat": before_retreat and not reasons,
            "counterattack_target": "attacker",
            "counterattack_dice": None,
            "counterattack": None,
            "attacker_may_advance": adjacent and (hit["destroyed"] or hit["hexes_retreated"] > 0),
            "lore_gained": {"attacker": hit["lore_gained"], "target": 0},
        }
        if reasons and counterattack is not None:
            raise REFUSALS("no-counterattack", reason=REFUSALS(CANNOT_COUNTERATTACK[reasons[0]["code"]]))
        struck = None if reasons else self._counterattack(answer, attacker, target, hit, before_retreat, counterattack or {})
        return {**answer, **self._berserk(berserk_kills, target, strike, hit, before_retreat, struck, counterattack or {})}

    def _after_berserk(self, unit: AttackingUnit, strike: Strike) -> tuple[AttackingUnit, bool | None]:
        """The rolling unit after its attack, 1 figure removed per use of Berserk (not damage: never ignored), and
        whether that left it no figure (None: its figures are not given) (battlelore/berserk, battlelore/removing-figures)."""
        removed = (strike.heroic_damage or {}).get("berserk", 0)
        if not removed:
            return unit, False
        if unit.get("damage_tokens"):  # one figure
            return unit, True
        if unit.get("health") is None:
            return unit, None
        left = int(unit["health"]) - removed
        return {**unit, "health": max(left, 1)}, left <= 0

    def _strike(self, unit: AttackingUnit | AttackedUnit, victim: AttackingUnit | AttackedUnit, strike: Strike, weakened: bool) -> dict[str, Any]:
        """Steps 4-8 of a combat roll: the heroic results spent for damage, then damage and retreat."""
        extra, spent = self._heroic_damage(unit, victim, strike)
        return self.damage_and_retreat(
            target=_damage_view(victim),
            results=strike.results,
            spent=spent,
            attack_type=strike.attack_type,
            attacker_weakened=weakened,
            damage=extra,
            path=strike.path,
        )

    def _heroic_damage(self, unit: AttackingUnit | AttackedUnit, victim: AttackingUnit | AttackedUnit, strike: Strike) -> tuple[int, dict[str, int]]:
        """Heroic results spent to deal 1 damage each, through the effect the player names (battlelore/berserk,
        battlelore/poison, battlelore/fury-of-yllan); each die is spent on one effect only (battlelore/spending-dice)."""
        heroic = strike.heroic_damage or {}
        open_to = {
            "berserk": (bool(unit.get("berserk")), self.HEROIC["berserk"], "heroic-without-berserk"),
            "poison": (bool(victim.get("poisoned")), self.HEROIC["poison"], "heroic-without-poison"),
            "fury_of_yllan": ("fury_of_yllan" in (strike.lore_cards or []), self.HEROIC["fury-of-yllan"], "heroic-without-fury"),
        }
        for effect, count in heroic.items():
            allowed, rule, refusal = open_to[effect]
            if count and not allowed:
                raise REFUSALS(refusal, rule=rule, count=count, effect=effect)
        used = heroic.get("berserk", 0) + heroic.get("poison", 0) + heroic.get("fury_of_yllan", 0)
        spent = dict(strike.spent or {})
        if used:
            spent["heroic"] = spent.get("heroic", 0) + used
            if spent["heroic"] > strike.results.get("heroic", 0):
                raise REFUSALS("heroic-overspent", rule=self.HEROIC["spending-dice"], spent=spent["heroic"], rolled=strike.results.get("heroic", 0))
        return used, spent

    def _ferocious(self, target: AttackedUnit, hit: dict[str, Any], adjacent: bool) -> bool:
        """A Ferocious target forced to retreat may counterattack before it retreats, even when the retreat would take
        it from its hex or destroy it - not when the damage itself destroys it (battlelore/ferocious)."""
        forced = hit["retreats_required"] > hit["retreats_ignored"]
        killed_by_damage = hit["damage_before_retreat"] >= target["health"]
        return bool(target.get("ferocious")) and forced and not killed_by_damage and adjacent and not target.get("stunned")

    def _counterattack_reasons(self, target: AttackedUnit, hit: dict[str, Any], adjacent: bool, before_retreat: bool) -> list[dict[str, str]]:
        """Why the target may not counterattack (battlelore/counterattack, battlelore/stun): none, it may."""
        destroyed, moved = hit["destroyed"], hit["hexes_retreated"] > 0
        reasons = []
        if destroyed and not before_retreat:
            reasons.append(_cannot_counterattack("destroyed", self.COUNTERATTACK_RULE))
        if moved and not before_retreat:
            reasons.append(_cannot_counterattack("left_its_hex", self.COUNTERATTACK_RULE))
        if not adjacent:
            reasons.append(_cannot_counterattack("not_adjacent", self.COUNTERATTACK_RULE))
        if target.get("stunned") and not destroyed:
            reasons.append(_cannot_counterattack("stunned", self.STUN_RULE))
        return reasons

    def _counterattack(
        self,
        answer: dict[str, Any],
        attacker: AttackingUnit,
        target: AttackedUnit,
        hit: dict[str, Any],
        before_retreat: bool,
        back: Counterattack,
    ) -> dict[str, Any] | None:
        """The counterattack's dice - the target in its hex with the damage just taken (before its retreat when it is
        Ferocious) - and, when its results are given, its damage and retreat on the attacking unit."""
        taken = hit["damage_before_retreat"] if before_retreat else hit["damage_taken"]
        health_left = max(target["health"] - taken, 0)
        after: AttackedUnit = {**target, "damage_suffered": target.get("damage_suffered", 0) + taken, "health": health_left}
        strike = Strike(
            back.get("attack_type", "melee"),
            back.get("results", {}),
            back.get("spent"),
            back.get("path"),
            back.get("lore_cards"),
            back.get("heroic_damage"),
        )
        back_roll = self.combat_dice(
            _dice_view(after),
            _dice_view(attacker),
            strike.attack_type,
            back.get("friendly_flankers_adjacent_to_target", 0),
            strike.lore_cards,
            back.get("other_modifiers", 0),
        )
        answer["counterattack_dice"] = back_roll["dice"]
        if "results" not in back:
            return None
        self._roll_results("counterattack-results-count", back_roll["dice"], strike.results)
        struck = self._strike(after, attacker, strike, self._weakened(target, health_left))
        answer["counterattack"] = {"dice": back_roll, "result": struck}
        answer["lore_gained"]["target"] = struck["lore_gained"]
        return struck

    def _berserk(
        self,
        attacker_killed: bool | None,
        target: AttackedUnit,
        strike: Strike,
        hit: dict[str, Any],
        before_retreat: bool,
        struck: dict[str, Any] | None,
        back: Counterattack,
    ) -> dict[str, Any]:
        """The figures Berserk removes from each unit - the attacker's after its attack, the target's after its
        counterattack - and whether they leave it none; the rules and clarifications followed."""
        removed = {
            "attacker": (strike.heroic_damage or {}).get("berserk", 0),
            "target": (back.get("heroic_damage") or {}).get("berserk", 0) if struck is not None else 0,
        }
        taken = hit["damage_before_retreat"] if before_retreat else hit["damage_taken"]
        figures = _figures(target, max(target["health"] - taken, 0))
        target_killed = False if not removed["target"] else None if figures is None else removed["target"] >= figures
        heroic_used = any((strike.heroic_damage or {}).values()) or any((back.get("heroic_damage") or {}).values())
        rules = [self.COUNTERATTACK_RULE]
        rules += [self.HEROIC["ferocious"]] if target.get("ferocious") else []
        rules += [self.HEROIC["berserk"], self.HEROIC["removing-figures"]] if any(removed.values()) else []
        return {
            "figures_removed_by_berserk": removed,
            "destroyed_by_berserk": {"attacker": attacker_killed, "target": target_killed},
            "rules": rules,
            "clarifications": [self.HEROIC["clarify-heroic-damage"]] if heroic_used else [],
        }

    def _attack_range(self, attack_type: str, adjacent: bool | None, distance: int | None, low: int | None, high: int | None) -> bool:
        """Whether attacker and target are adjacent, with the range checked against the attack's band (a melee attack's
        is 1; a ranged attack's is its reference card's, which the players give): a refusal naming the rule, or the
        input the players must give."""
        adjacent = self._adjacent_at(adjacent, distance)
        if attack_type == "melee":
            if low is not None or high is not None:
                raise REFUSALS("melee-attack-range", rule=self.RANGE_RULE, range=self.MELEE_RANGE, low="min_range", high="max_range")
            return True if adjacent is None else adjacent
        if distance is not None or low is not None or high is not None:  # the range in question
            self._ranged_band(distance, low, high)
        return bool(adjacent)

    def _adjacent_at(self, adjacent: bool | None, distance: int | None) -> bool | None:
        """Whether the units are adjacent: at the melee range of 1 (battlelore/range), when the range is given; a
        range that contradicts `adjacent` is refused."""
        if distance is None:
            return adjacent
        if adjacent is not None and adjacent != (distance == self.MELEE_RANGE):
            refusal = "range-one-is-adjacent" if distance == self.MELEE_RANGE else "range-not-adjacent"
            raise REFUSALS(refusal, rule=self.RANGE_RULE, range=distance)
        return bool(distance == self.MELEE_RANGE)

    def _ranged_band(self, distance: int | None, low: int | None, high: int | None) -> None:
        """A ranged attack's target must be within the band of its reference card, `low` to `high`, and adjacent only
        with a minimum range of 1 (battlelore/range, battlelore/ranged): refused otherwise, or without all three."""
        if distance is None or low is None or high is None:
            missing = [n for n, v in (("range", distance), ("min_range", low), ("max_range", high)) if v is None]
            raise REFUSALS("ranged-range-missing", rule=self.RANGE_RULE, fields=missing)
        if low > high:
            raise REFUSALS("min-above-max", rule=self.RANGE_RULE, low=low, high=high)
        if distance < low and distance == self.MELEE_RANGE:
            adjacent = REFUSALS("adjacent-needs-minimum-one", rule=self.RANGED_RULE)
            raise REFUSALS("under-minimum-range", rule=self.RANGE_RULE, range=distance, low=low, reason=adjacent)
        if not low <= distance <= high:  # the reason cites battlelore/ranged, the band battlelore/range
            within = REFUSALS("target-within-range", rule=self.RANGED_RULE)
            if distance < low:
                raise REFUSALS("under-minimum-range", rule=self.RANGE_RULE, range=distance, low=low, reason=within)
            raise REFUSALS("beyond-maximum-range", rule=self.RANGE_RULE, range=distance, high=high, reason=within)

    def _step_problems(self, unit: MovingUnit, step: int, here: Hex, last: bool, ground: dict[Hex, str], occupied: set[Any]) -> list[dict[str, Any]]:
        """What forbids entering hex `here` as the step-th hex of a move (battlelore/movement and the terrain entries)."""
        terrain = ground.get(here, "plains")
        flying = bool(unit.get("flying"))
        found = []

        def problem(code: str, rule: str, message: str) -> None:
            found.append({"code": code, "rule": rule, "step": step, "hex": list(here), "message": message})

        if terrain == "off_board":
            problem("off_board", self.MOVEMENT_RULE, "a unit cannot leave the board nor enter a half hex at its edge")
        elif terrain in self.IMPASSABLE and not flying:
            problem("impassable", self.MOVEMENT_RULE, f"a unit cannot enter or pass through {terrain} (impassable terrain)")
        elif unit.get("cumbersome") and terrain == "building":
            problem("cumbersome", self.CUMBERSOME_RULE, "a Cumbersome unit cannot enter a building hex")
        if here in occupied and (last or not flying):
            rule, why = (self.FLYING_RULE, "end its move") if flying else (self.MOVEMENT_RULE, "enter or pass through")
            problem("occupied", rule, f"a unit cannot {why} a hex with another unit")
        if terrain in self.ENDS_MOVEMENT and not last and not flying:
            problem("movement_ended", TERRAIN_ENTRIES[terrain], f"a unit entering {terrain} ends its movement there")
        return found

    @check("move")
    def move(
        self,
        start: list[Any],
        path: list[Any],
        march_speed: int | None = None,
        unit: MovingUnit | None = None,
        terrain: list[TerrainSpot] | None = None,
        units: list[Any] | None = None,
    ) -> dict[str, Any]:
        """Whether a move is legal: `path` the hexes entered in order (axial (q, r), each adjacent to the one before),
        at most `march_speed` of them (the unit's march speed, from its reference card). `terrain` [{hex, terrain}]
        (unlisted hexes are plains; a hex off the board or a half hex at its edge is terrain "off_board"), `units`
        the hexes of the other units, friendly or enemy. `unit` {flying, cumbersome}. A Flying unit ignores the hexes'
        restrictions and other units, but may not end its move on another unit nor leave the board.
        """
        unit = unit or {}
        ground = self._board_terrain(terrain)
        occupied = {(u[0], u[1]) for u in units or []}
        hexes = [(start[0], start[1])] + [(h[0], h[1]) for h in path]
        if hexes[0] in occupied:
            raise REFUSALS("own-hex-among-units", start=list(start))
        problems = []
        if march_speed is not None and len(path) > march_speed:
            problems.append(
                {
                    "code": "too_far",
                    "rule": self.PHASES_RULE,
                    "step": march_speed + 1,
                    "hex": list(hexes[march_speed + 1]),
                    "message": f"a unit moves at most its march speed, {march_speed} hex(es), not {len(path)}",
                }
            )
        for step, (before, here) in enumerate(zip(hexes, hexes[1:], strict=False), 1):
            if hex_distance(before, here) != 1:
                raise REFUSALS("step-not-adjacent", step=step, hex=list(here), previous=list(before))
            problems += self._step_problems(unit, step, here, step == len(path), ground, occupied)
        return {
            "legal": not problems,
            "hexes_moved": len(path),
            "ends_in": list(hexes[-1]),
            "ends_in_terrain": ground.get(hexes[-1], "plains"),
            "problems": problems,
        }
