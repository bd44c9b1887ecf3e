"""Wizard's Quest: the checks, with every number read from the entries named next to it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, NotRequired, TypedDict, cast

from ..core import Game, GameData, Refusals, check

REFUSALS = Refusals(
    {
        "men-and-orcs-in-one-force": "a force is men or orcs, not both: orcs and players' pieces never share a space",
        "hero-and-sorcerer-in-one-space": "a Hero and a Sorcerer may not occupy the same space",
        "too-many-orcs-in-one-space": "only {most} orcs may occupy one space, not {orcs}",
        "hero-or-sorcerer-with-orcs": "a Hero or Sorcerer is a player's piece: it never shares a space with orcs",
        "empty-force": "an empty force has no death range",
        "attacking-death-range-0": (
            "Battle {number}: the attacking location is unoccupied (a death range of 0: no man, orc, Hero or Sorcerer): "
            "it has no forces to attack with"
        ),
        "attacked-death-range-0": (
            "Battle {number}: the attacked location is unoccupied (a death range of 0: no man, orc, Hero or Sorcerer; "
            "a Treasure, the Dragon or the Wizard does not occupy it): no Battle is fought there, the attacker captures it"
        ),
        "battle-against-unoccupied-location": (
            "Battle {number}: the attacked location is unoccupied (no man, orc, Hero or Sorcerer; a Treasure, the Dragon "
            "or the Wizard does not occupy it): no Battle is fought there, the attacker captures it"
        ),
        "reinforcements-too-few-for-leaders": "{heroes} Hero(es) and {sorcerers} Sorcerer(s) cost {cost} men; only {men} are received",
        "unoccupied-location-attacks": "an unoccupied location has no forces to attack with",
        "orcs-with-players-pieces": "orcs and players' pieces never share a space",
        "attack-over-attacked-location-unoccupied": "Battle {number}: the attack is over (the attacked location is unoccupied)",
        "attack-over-attacking-location-unoccupied": "Battle {number}: the attack is over (the attacking location is unoccupied)",
        "landing-orcs-with-players-pieces": "landing {number}: orcs and players' pieces never share a space",
        "landing-after-the-dragon-stopped": "landing {number}: the Dragon stopped at landing {previous}, having devoured a man, Hero or Sorcerer",
        "scatter-to-the-battle-location": "{location}: scattered pieces go to any other location",
        "scatter-to-another-players-location": (
            "{location}: scattered pieces go only to their owner's or unoccupied locations, not to one held by other player"
        ),
        "scatter-to-an-orc-location": "{location}: scattered pieces go only to their owner's or unoccupied locations, not to one held by orcs",
        "scatter-too-many-orcs": "{location}: a location holds at most {most} orcs",
        "scatter-hero-and-sorcerer": "{location}: a Hero and a Sorcerer never share a space",
        "scattered-pieces-not-placed": "the destinations place {placed}, but the pieces scattered are {wanted}: every scattered piece is placed",
        "growth-needs-the-castles-of-a-region": (
            "region {region} was rolled: give {field} for it (the castles next to its territories; the map is not printed)"
        ),
        "leader-already-in-the-attacking-location": (
            "the player's {leader} is already in the attacking location: a player moves his Hero or Sorcerer in"
        ),
        "location-given-twice": "{location} is given twice: list each of the player's locations once",
        "rampage-below-4-orcs": "a location rampages only once its orcs have reached {at}, not with {orcs}",
        "neighbour-given-twice": "{location} is given twice: list each adjacent location once, clockwise",
        "neighbour-is-the-rampaging-location": "{location} is the rampaging location itself, not a location adjacent to it",
        "great-tunnel-before-others": (
            "{location} is adjacent through the Great Tunnel: list it after the locations adjacent otherwise (it is attacked last)"
        ),
        "rampage-over-orcs-left": "roll {number}: the rampage is over ({orcs} orc(s) left in the rampaging location)",
        "rampage-over-no-target": "roll {number}: the rampage is over (no legal target remains)",
        "connection-to-another-location": (
            "a connection names {location}, which is not one of the player's locations: give the connections between his own locations"
        ),
    }
)
# a Battle given after the Attack ended, as a location became unoccupied (Rules.attack's `ended`, a code its calculator
# labels): the refusal that says which
ATTACK_OVER = {
    "attacked_location_unoccupied": "attack-over-attacked-location-unoccupied",
    "attacking_location_unoccupied": "attack-over-attacking-location-unoccupied",
}


class BattleRoll(TypedDict):
    """One side's roll in a Battle and its own death range (battle_roll: battle_input.battles, one side's or each side's)."""

    death_range: int
    roll: int


class BothRolls(TypedDict):
    """A whole Battle: both sides' death ranges and rolls (battle_input.battles without `side`)."""

    attacker: BattleRoll
    defender: BattleRoll


class AttackingForce(TypedDict):
    """The forces in the attacking location (may_attack_input.attacker, attack_input.attacker)."""

    men: NotRequired[int]
    hero: NotRequired[bool]
    sorcerer: NotRequired[bool]


class Target(TypedDict):
    """What an attack goes into (may_attack_input.target)."""

    kind: str
    hero: NotRequired[bool]
    sorcerer: NotRequired[bool]
    in_wizards_region: NotRequired[bool]
    adjacent: NotRequired[bool]
    own: NotRequired[bool]


class DefendingForce(TypedDict):
    """The forces in the attacked location (attack_input.defender)."""

    men: NotRequired[int]
    orcs: NotRequired[int]
    hero: NotRequired[bool]
    sorcerer: NotRequired[bool]
    in_wizards_region: NotRequired[bool]


class AttackBattle(TypedDict):
    """One Battle of an Attack: both dice, and the men assisting before it (attack_input.battles)."""

    attacker_roll: int
    defender_roll: int
    assist_men: NotRequired[int]


class Pieces(TypedDict):
    """One side's losses scattered rather than destroyed (scatter_input.pieces)."""

    men: NotRequired[int]
    orcs: NotRequired[int]
    hero: NotRequired[bool]
    sorcerer: NotRequired[bool]


class OrcTerritory(TypedDict):
    """A territory orcs hold before the Orc Phase (orc_phase_input.orc_locations, its first form)."""

    region: int
    territory: int
    orcs: int


class OrcCastle(TypedDict):
    """A castle orcs hold before the Orc Phase (orc_phase_input.orc_locations, its second form)."""

    castle: int
    orcs: int


class RegionCastles(TypedDict):
    """The castles next to a region's territories (orc_phase_input.castles_adjacent_to_region)."""

    region: int
    castles: list[int]


class Landing(TypedDict):
    """One landing of the Dragon (dragon_phase_input.landings)."""

    region: int
    territory: int
    devour_roll: int
    men: NotRequired[int]
    orcs: NotRequired[int]
    hero: NotRequired[bool]
    sorcerer: NotRequired[bool]


class Held(TypedDict):
    """A location the player occupies (kingdoms_input.locations)."""

    location: str
    castle: NotRequired[bool]


class Connection(TypedDict):
    """Two of the player's locations next to each other (kingdoms_input.connections)."""

    between: str
    to: str


class Neighbour(TypedDict):
    """A location adjacent to the rampaging one, and what it holds (orc_rampage_input.neighbours)."""

    location: str
    men: NotRequired[int]
    orcs: NotRequired[int]
    hero: NotRequired[bool]
    sorcerer: NotRequired[bool]
    dragon: NotRequired[bool]
    in_wizards_region: NotRequired[bool]
    terrain: NotRequired[str]
    attacked_across: NotRequired[str]


class RampageRoll(TypedDict):
    """One attack's Battle in a rampage: the orcs' die and the defender's (orc_rampage_input.rolls)."""

    orcs_roll: int
    defender_roll: int


class Destination(TypedDict):
    """A location scattered pieces go to (scatter_input.destinations)."""

    location: str
    holds: str
    men: NotRequired[int]
    orcs: NotRequired[int]
    hero: NotRequired[bool]
    sorcerer: NotRequired[bool]
    orcs_there: NotRequired[int]
    hero_there: NotRequired[bool]
    sorcerer_there: NotRequired[bool]


DEATH_RANGE_PARAMS = (
    "per_man_or_orc",
    "men_orcs_max",
    "hero_bonus",
    "hero_alone",
    "sorcerer_bonus",
    "sorcerer_alone",
    "dragon",
    "wizard",
    "defender_castle_bonus",
    "defender_forest_or_mountains_bonus",
    "defender_across_bridge_or_great_tunnel_bonus",
)
DIE = range(1, 7)  # a Battle's roll is one die, 1-6: "1D6" (wizards-quest/sorcerer-summary), "one die (1-6)"
# (wizards-quest/clarify-death-range-cap); no entry gives it as a param
TWO_PLAYER_PARAMS = ("reinforce_first", "reinforce_second", "reinforce_first_again", "extra_men_defending_treasure")


class Rules(Game):
    def __init__(self, data: GameData):
        super().__init__(data)
        self.DR = data.pick("wizards-quest/death-range", DEATH_RANGE_PARAMS)  # from wizards-quest/death-range
        self.BATTLE_RULE = data.ref("wizards-quest/clarify-battle-resolution")
        self.BOTH_FAIL_RULE = data.ref("wizards-quest/orc-rampage-aftermath")
        self.BOTH_FAIL_LOSS = data.param(
            "wizards-quest/orc-rampage-aftermath", "attacker_loss_if_both_fail"
        )  # from wizards-quest/orc-rampage-aftermath, adopted for every Battle by the clarification
        self.OCCUPANCY_RULE = data.ref("wizards-quest/occupancy-rules")
        self.UNOCCUPIED_RULE = data.ref("wizards-quest/clarify-attack-on-unoccupied-location")
        self.OCCUPIED_RULE = data.ref("wizards-quest/occupied-space")
        self.CAPTURE_RULE = data.ref("wizards-quest/capture")
        self.DURATION_RULE = data.ref("wizards-quest/attack-duration")
        self.MAX_ORCS = data.param("wizards-quest/occupancy-rules", "max_orcs_per_space")  # from wizards-quest/occupancy-rules
        self.MEN_PER_KINGDOM_LOCATION = data.param("wizards-quest/reinforcement", "men_per_kingdom_location")  # from wizards-quest/reinforcement
        self.KINGDOM_RULE = data.ref("wizards-quest/kingdom")
        self.ADJACENCY_RULE = data.ref("wizards-quest/adjacency")
        self.REINFORCEMENT_RULE = data.ref("wizards-quest/reinforcement")
        self.MINIMUM_REINFORCEMENT = data.param("wizards-quest/reinforcement", "minimum_reinforcement")
        self.HERO_COST = data.param("wizards-quest/reinforcement", "hero_cost_men")
        self.SORCERER_COST = data.param("wizards-quest/reinforcement", "sorcerer_cost_men")
        self.TWO_PLAYER = data.pick("wizards-quest/two-player-setup", TWO_PLAYER_PARAMS)  # from wizards-quest/two-player-setup
        self.PHASE_RULES = {  # the Dragon Attack Phase and scattering, and the readings they follow
            name: data.ref(f"wizards-quest/{name}")
            for name in (
                "clarify-battle-resolution",
                "dragon-attack",
                "scatter",
                "clarify-scatter-destination",
                "clarify-hero-sorcerer-losses",
                "hero-and-sorcerer-cost",
                "orc-growth",
                "orc-rampage",
                "orc-rampage-order",
                "orc-settlement",
                "orc-attack-direction",
                "orc-attack-targets",
                "orc-rampage-aftermath",
                "clarify-rampage-great-tunnel",
                "assist",
                "hero-sorcerer-assist",
                "free-attack",
                "ordinary-attack-on-dragon-or-wizard",
            )
        }
        self.TREASURES_TO_WIN = data.param("wizards-quest/goal", "own_treasures_to_win")  # from wizards-quest/goal
        self.ORC_GROWTH = data.param("wizards-quest/orc-growth", "orcs_added_per_location")  # from wizards-quest/orc-growth
        self.RAMPAGE_AT = data.param("wizards-quest/orc-rampage", "rampage_threshold_orcs")  # from wizards-quest/orc-rampage
        self.SETTLED_PER_LOCATION = data.param("wizards-quest/orc-settlement", "orcs_per_unoccupied_location")  # from wizards-quest/orc-settlement
        self.TERRAIN = {
            "castle": self.DR["defender_castle_bonus"],
            "forest": self.DR["defender_forest_or_mountains_bonus"],
            "mountains": self.DR["defender_forest_or_mountains_bonus"],
        }

    @check("death_range")
    def death_range(
        self,
        side: str,
        men: int = 0,
        orcs: int = 0,
        hero: bool = False,
        sorcerer: bool = False,
        dragon: bool = False,
        wizard: bool = False,
        terrain: str | None = None,
        attacked_across: str | None = None,
        location: str | None = None,
    ) -> dict[str, Any]:
        """The death_range check: see describe()."""
        self._check_space(men, orcs, hero, sorcerer)
        if dragon or wizard:
            return {"death_range": self.DR["dragon"] if dragon else self.DR["wizard"]}
        parts = self._pieces_parts(men, orcs, hero, sorcerer)
        if not parts:
            raise REFUSALS("empty-force")
        if side == "defender":
            parts.update(self._defender_part(terrain, attacked_across))
        return {"death_range": sum(parts.values()), **parts}

    def _check_space(self, men: int, orcs: int, hero: bool, sorcerer: bool) -> None:
        """What one space may hold (the occupancy rules): men or orcs, not both; a Hero or a Sorcerer, not both, and
        never with orcs; at most so many orcs."""
        if men and orcs:
            raise REFUSALS("men-and-orcs-in-one-force", rule=self.OCCUPANCY_RULE)
        if hero and sorcerer:
            raise REFUSALS("hero-and-sorcerer-in-one-space", rule=self.OCCUPANCY_RULE)
        if orcs > self.MAX_ORCS:
            raise REFUSALS("too-many-orcs-in-one-space", rule=self.OCCUPANCY_RULE, most=self.MAX_ORCS, orcs=orcs)
        if orcs and (hero or sorcerer):
            raise REFUSALS("hero-or-sorcerer-with-orcs", rule=self.OCCUPANCY_RULE)

    def _pieces_parts(self, men: int, orcs: int, hero: bool, sorcerer: bool) -> dict[str, Any]:
        """The death range the pieces bring, part by part: the men's or orcs' (capped), then the Hero's or the
        Sorcerer's, his own when alone in the location, else a bonus."""
        parts = {}
        pieces = men or orcs
        if pieces:
            parts["orcs_part" if orcs else "men_part"] = min(pieces * self.DR["per_man_or_orc"], self.DR["men_orcs_max"])
        alone = not pieces  # "when alone in a location" a Hero or Sorcerer has a death range of his own
        if hero:
            parts["hero_part"] = self.DR["hero_alone" if alone else "hero_bonus"]
        if sorcerer:
            parts["sorcerer_part"] = self.DR["sorcerer_alone" if alone else "sorcerer_bonus"]
        return parts

    def _defender_part(self, terrain: str | None, attacked_across: str | None) -> dict[str, Any]:
        """The defender's bonus: attacked across a bridge or the Great Tunnel, else its location's terrain."""
        if attacked_across in ("bridge", "great_tunnel"):
            return {"tunnel_part" if attacked_across == "great_tunnel" else "bridge_part": self.DR["defender_across_bridge_or_great_tunnel_bonus"]}
        if terrain in self.TERRAIN:
            return {"terrain_part": self.TERRAIN[terrain]}
        return {}

    def _inflicted(self, roll: BattleRoll) -> int:
        return roll["roll"] if roll["roll"] <= roll["death_range"] else 0

    @check("battle")
    def battle(self, battles: list[BattleRoll] | list[BothRolls], side: str | None = None) -> dict[str, Any]:
        """The rule is inferred from the tables (the text never states it): a roll at or under the roller's
        own death range kills as many of the opponent's pieces as the roll shows; a higher roll kills none.
        With both sides' rolls (no `side`), a Battle where both fail costs the attacker 1 (orc-rampage-aftermath,
        adopted for every Battle by the clarification). With one side's rolls (the sample tables) only what those
        rolls inflict is known.
        """
        if side:  # one side's rolls (the schema's first form), else whole Battles (its second)
            rolls = cast("list[BattleRoll]", battles)
            for number, roll in enumerate(rolls, 1):
                if roll["death_range"] == 0:
                    self._refuse_death_range_0(side, number)
            key = "defender_losses" if side == "attacker" else "attacker_losses"
            return {key: [self._inflicted(roll) for roll in rolls], "clarification": self.BATTLE_RULE}
        whole = cast("list[BothRolls]", battles)
        for number, b in enumerate(whole, 1):
            for roller in ("attacker", "defender"):
                if b[roller]["death_range"] == 0:
                    self._refuse_death_range_0(roller, number)
        result: dict[str, Any] = {"attacker_losses": [], "defender_losses": [], "both_failed": []}
        for b in whole:
            by_attacker, by_defender = self._inflicted(b["attacker"]), self._inflicted(b["defender"])
            both_failed = by_attacker == 0 and by_defender == 0
            result["defender_losses"].append(by_attacker)
            result["attacker_losses"].append(self.BOTH_FAIL_LOSS if both_failed else by_defender)
            result["both_failed"].append(both_failed)
        result.update(clarification=self.BATTLE_RULE, both_fail_rule=self.BOTH_FAIL_RULE)
        return result

    def _refuse_death_range_0(self, side: str, number: int) -> None:
        """A side with no pieces fights no Battle: an unoccupied location does not attack, and is captured, not fought."""
        if side == "attacker":
            raise REFUSALS("attacking-death-range-0", rule=self.OCCUPIED_RULE, number=number)
        raise REFUSALS("attacked-death-range-0", rule=(self.CAPTURE_RULE, self.OCCUPIED_RULE, self.UNOCCUPIED_RULE), number=number)

    @check("hit_probability")
    def hit_probability(self, death_range: int) -> dict[str, Any]:
        """The chance that one Battle roll hits - at or under the roller's own death range - and the losses it
        inflicts on average, each roll of the die counted once, under the clarified battle rule (`battle`)."""
        inflicted = {roll: self._inflicted({"death_range": death_range, "roll": roll}) for roll in DIE}
        hits = [roll for roll, losses in inflicted.items() if losses]
        probability = Fraction(len(hits), len(DIE))
        losses = Fraction(sum(inflicted.values()), len(DIE))
        return {
            "probability": float(probability),
            "exact": f"{probability.numerator}/{probability.denominator}",
            "hit_rolls": hits,
            "expected_losses": float(losses),
            "expected_losses_exact": f"{losses.numerator}/{losses.denominator}",
            "clarification": self.BATTLE_RULE,
        }

    @check("reinforcements")
    def reinforcements(self, kingdom_locations: int, heroes: int = 0, sorcerers: int = 0) -> dict[str, Any]:
        """The reinforcements check: see describe()."""
        men = max(kingdom_locations * self.MEN_PER_KINGDOM_LOCATION, self.MINIMUM_REINFORCEMENT)
        cost = heroes * self.HERO_COST + sorcerers * self.SORCERER_COST
        if cost > men:
            raise REFUSALS("reinforcements-too-few-for-leaders", heroes=heroes, sorcerers=sorcerers, cost=cost, men=men)
        return {"men": men - cost, "heroes": heroes, "sorcerers": sorcerers, "total_men_value": men}

    @check("kingdoms")
    def kingdoms(self, locations: list[Held], connections: list[Connection] | None = None, heroes: int = 0, sorcerers: int = 0) -> dict[str, Any]:
        """The player's kingdoms from the locations he occupies and which of them are adjacent (a shared border, a
        bridge, the Great Tunnel: wizards-quest/adjacency; the map is not printed, so the player names them): each
        group of his connected locations holding a castle is one kingdom, each location in one kingdom only
        (wizards-quest/kingdom, wizards-quest/reinforcement); then the men they bring (the reinforcements check)."""
        castles: dict[str, bool] = {}
        for place in locations:
            if place["location"] in castles:
                raise REFUSALS("location-given-twice", rule=self.KINGDOM_RULE, location=place["location"])
            castles[place["location"]] = place.get("castle", False)
        next_to: dict[str, set[str]] = {name: set() for name in castles}
        for connection in connections or []:
            for end in (connection["between"], connection["to"]):
                if end not in castles:
                    raise REFUSALS("connection-to-another-location", rule=self.KINGDOM_RULE, location=end)
            next_to[connection["between"]].add(connection["to"])
            next_to[connection["to"]].add(connection["between"])
        groups = _connected_groups(list(castles), next_to)
        kingdoms = [group for group in groups if any(castles[name] for name in group)]
        counted = sum(len(group) for group in kingdoms)
        return {
            "kingdoms": [{"locations": group, "castles": sum(castles[name] for name in group)} for group in kingdoms],
            "kingdom_count": len(kingdoms),
            "kingdom_locations": counted,
            "outside_kingdoms": [name for group in groups if group not in kingdoms for name in group],
            "reinforcements": self.reinforcements(kingdom_locations=counted, heroes=heroes, sorcerers=sorcerers),
            "rules": [self.KINGDOM_RULE, self.ADJACENCY_RULE, self.REINFORCEMENT_RULE],
        }

    @check("two_player_setup")
    def two_player_setup(self) -> dict[str, Any]:
        """The two_player_setup check: see describe()."""
        sequence = [
            {"player": 1, "men": self.TWO_PLAYER["reinforce_first"]},
            {"player": 2, "men": self.TWO_PLAYER["reinforce_second"]},
            {"player": 1, "men": self.TWO_PLAYER["reinforce_first_again"]},
        ]
        totals: dict[int, int] = {}
        for step in sequence:
            totals[step["player"]] = totals.get(step["player"], 0) + step["men"]
        return {
            "sequence": sequence,
            "total_men": totals,
            "extra_men_defending_treasure": self.TWO_PLAYER["extra_men_defending_treasure"],
        }

    # -- whole situations: who may attack whom, and a whole Attack -------------------------------------------------

    def _refs(self, *ids: str) -> list[str]:
        return [self.data.ref(i) for i in ids]

    @check("may_attack")
    def may_attack(self, attacker: AttackingForce, target: Target) -> dict[str, Any]:
        """Whether the forces in one location may attack a target: another player's forces, orcs, the Dragon or the
        Wizard. `attacker` holds `hero`/`sorcerer` (and `men`); `target` its `kind`, `hero`/`sorcerer`, whether it is a
        territory in the Wizard's region (`in_wizards_region`), `adjacent` (default true) and `own` (the attacker's
        own location)."""
        reasons = []

        def refuse(code: str, rule: str, message: str) -> None:
            reasons.append({"code": code, "rule": self.data.ref(rule), "message": message})

        hero, sorcerer = attacker.get("hero", False), attacker.get("sorcerer", False)
        if hero and sorcerer:
            raise REFUSALS("hero-and-sorcerer-in-one-space", rule=self.OCCUPANCY_RULE)
        if not (attacker.get("men", 0) or hero or sorcerer):
            raise REFUSALS("unoccupied-location-attacks", rule=self.OCCUPIED_RULE)
        kind = target["kind"]
        if kind == "wizard":
            if hero:
                refuse("hero_against_wizard", "wizards-quest/hero-summary", "forces that include a Hero may not attack the Wizard")
            if not sorcerer:
                refuse(
                    "wizard_needs_sorcerer",
                    "wizards-quest/who-may-attack-dragon-or-wizard",
                    "the Wizard may be attacked only by forces that include a Sorcerer",
                )
        elif kind == "dragon":
            if not (hero or sorcerer):
                refuse(
                    "dragon_needs_hero_or_sorcerer",
                    "wizards-quest/who-may-attack-dragon-or-wizard",
                    "the Dragon may be attacked only by forces that include a Hero or a Sorcerer",
                )
        else:
            if target.get("own", False):
                refuse("own_location", "wizards-quest/attack", "an attack goes into a location not occupied by the attacker")
            if target.get("hero", False) and not hero:
                refuse(
                    "hero_needs_hero",
                    "wizards-quest/hero-attack-restriction",
                    "forces that include a Hero may be attacked only by forces that include a Hero",
                )
            if target.get("in_wizards_region", False):
                refuse(
                    "wizards_region",
                    "wizards-quest/clarify-attacks-in-wizard-region",
                    "territories in the Wizard's region may not be attacked",
                )
        if not target.get("adjacent", True):
            refuse(
                "not_adjacent",
                "wizards-quest/attack",
                "an attack goes into an adjacent location (a bridge or the Great Tunnel counts; across water only with the Boat Privilege card)",
            )
        return {"allowed": not reasons, "reasons": reasons}

    def _force_range(self, side: str, force: dict[str, Any], terrain: str | None, across: str | None) -> int:
        pieces = {k: force[k] for k in ("men", "orcs", "hero", "sorcerer") if force.get(k)}
        if not pieces:
            return 0
        return int(self.death_range(side=side, terrain=terrain, attacked_across=across, **pieces)["death_range"])

    def _lose(self, force: dict[str, Any], losses: int) -> tuple[int, list[str]]:
        """Remove `losses` pieces, men (or orcs) first, the Hero or Sorcerer last (one piece each): the pieces removed,
        capped at those present, and the Hero/Sorcerer lost."""
        kind = "orcs" if force.get("orcs") else "men"
        taken = min(losses, force.get(kind, 0))
        force[kind] = force.get(kind, 0) - taken
        lost = []
        for leader in ("hero", "sorcerer"):
            if taken < losses and force.get(leader):
                force[leader] = False
                taken += 1
                lost.append(leader)
        return taken, lost

    def _fight(
        self, attacking: dict[str, Any], defending: dict[str, Any], attacker_roll: int, defender_roll: int, terrain: str | None, across: str | None
    ) -> dict[str, Any]:
        """One Battle (wizards-quest/clarify-battle-resolution): both death ranges from the pieces present (the
        defender's with its terrain or the bridge or Great Tunnel it is attacked across), each roll at or under its
        roller's death range kills that many, both failing costs the attacker 1 (wizards-quest/orc-rampage-aftermath);
        the losses are taken from `attacking` and `defending` in place."""
        ranges = {
            "attacker": self._force_range("attacker", attacking, None, None),
            "defender": self._force_range("defender", defending, terrain, across),
        }
        rolls = {"attacker": attacker_roll, "defender": defender_roll}
        inflicted = {side: self._inflicted({"roll": rolls[side], "death_range": ranges[side]}) for side in rolls}
        both_failed = not inflicted["attacker"] and not inflicted["defender"]
        defender_lost, defender_leaders = self._lose(defending, inflicted["attacker"])
        attacker_lost, attacker_leaders = self._lose(attacking, self.BOTH_FAIL_LOSS if both_failed else inflicted["defender"])
        return {
            "death_range": ranges,
            "rolls": rolls,
            "both_failed": both_failed,
            "attacker_losses": attacker_lost,
            "defender_losses": defender_lost,
            "leaders_lost": {"attacker": attacker_leaders, "defender": defender_leaders},
        }

    @staticmethod
    def _occupied(force: dict[str, Any]) -> bool:
        return bool(force.get("men") or force.get("orcs") or force.get("hero") or force.get("sorcerer"))

    @check("attack")
    def attack(
        self,
        attacker: AttackingForce,
        defender: DefendingForce,
        battles: list[AttackBattle],
        terrain: str | None = None,
        attacked_across: str | None = None,
        stop: bool = False,
        treasure_here: str | None = None,
        own_treasures_found_before: int = 0,
    ) -> dict[str, Any]:
        """A whole Attack: Battle after Battle (each with both sides' rolls, and men assisting before it), death ranges
        recomputed from the pieces left, losses capped at the pieces present (men or orcs first, the Hero or Sorcerer
        last: wizards-quest/clarify-hero-sorcerer-losses), the both-fail rule, until a location is unoccupied; then
        capture (wizards-quest/clarify-capture-with-last-man) and what is scattered rather than destroyed when a
        Sorcerer is present. `stop`: the attacker stopped after the last Battle given. An unoccupied location (no man,
        orc, Hero or Sorcerer) is captured without a Battle: a Battle against it is refused
        (wizards-quest/clarify-attack-on-unoccupied-location). `treasure_here`: the treasure lying in the attacked
        location (own, another player's, or the dummy); captured, the player's own treasure is found.
        """
        attacking: dict[str, Any] = dict(attacker)  # the pieces left, Battle after Battle
        defending: dict[str, Any] = dict(defender)
        permission = self.may_attack(
            attacker=attacker,
            target={
                "kind": "orcs" if defending.get("orcs") else "player",
                "hero": defending.get("hero", False),
                "in_wizards_region": defending.get("in_wizards_region", False),
            },
        )
        if defending.get("men") and defending.get("orcs"):
            raise REFUSALS("orcs-with-players-pieces", rule=self.OCCUPANCY_RULE)
        for force, side in ((attacking, "attacker"), (defending, "defender")):
            if self._occupied(force):
                self._force_range(side, force, terrain, attacked_across)  # refuses an impossible space
        result: dict[str, Any] = {"allowed": permission["allowed"], "reasons": permission["reasons"], "battles": []}
        if not permission["allowed"]:
            return result
        empty_from_the_start = not self._occupied(defending)  # captured without a Battle
        if empty_from_the_start and battles:
            raise REFUSALS("battle-against-unoccupied-location", rule=(self.CAPTURE_RULE, self.OCCUPIED_RULE, self.UNOCCUPIED_RULE), number=1)
        ended = "attacked_location_unoccupied" if empty_from_the_start else None
        result["battles"], removed, ended = self._battles(attacking, defending, battles, terrain, attacked_across, ended)
        if not ended:
            ended = "attacker_stopped" if stop else None
        result["ended"] = ended
        result["removed"] = removed
        result["capture"] = self._capture(attacking, defending)
        result["treasure"] = self._treasure(result["capture"]["must_capture"], treasure_here, own_treasures_found_before)
        result["rules"] = self._refs(
            "wizards-quest/clarify-battle-resolution",
            "wizards-quest/orc-rampage-aftermath",
            "wizards-quest/clarify-hero-sorcerer-losses",
            "wizards-quest/scatter",
            "wizards-quest/attack-duration",
            *([self.UNOCCUPIED_RULE] if empty_from_the_start else []),
        )
        return result

    def _battles(
        self,
        attacking: dict[str, Any],
        defending: dict[str, Any],
        battles: list[AttackBattle],
        terrain: str | None,
        across: str | None,
        ended: str | None,
    ) -> tuple[list[dict[str, Any]], dict[str, dict[str, int]], str | None]:
        """Battle after Battle, the men assisting before each (the forces changed as they go): each Battle with the
        pieces left after it, the pieces removed from each side, and why the Attack ended - a location left unoccupied
        (wizards-quest/attack-duration), after which a Battle is refused. With a Sorcerer attacking, the defender's
        losses are scattered, not destroyed; the attacker's too when the defender has a Sorcerer (wizards-quest/scatter)."""
        scatter_defender = bool(attacking.get("sorcerer"))
        scatter_attacker = bool(attacking.get("sorcerer") and defending.get("sorcerer"))
        removed = {"attacker": {"destroyed": 0, "scattered": 0}, "defender": {"destroyed": 0, "scattered": 0}}
        fought_battles = []
        for number, battle in enumerate(battles, 1):
            if ended:
                raise REFUSALS(ATTACK_OVER[ended], rule=self.DURATION_RULE, number=number)
            attacking["men"] = attacking.get("men", 0) + battle.get("assist_men", 0)
            fought = self._fight(attacking, defending, battle["attacker_roll"], battle["defender_roll"], terrain, across)
            removed["defender"]["scattered" if scatter_defender else "destroyed"] += fought["defender_losses"]
            removed["attacker"]["scattered" if scatter_attacker else "destroyed"] += fought["attacker_losses"]
            fought_battles.append(
                {
                    **fought,
                    "attacker_after": {k: attacking.get(k, 0 if k == "men" else False) for k in ("men", "hero", "sorcerer")},
                    "defender_after": {k: defending[k] for k in ("men", "orcs", "hero", "sorcerer") if k in defending},
                }
            )
            if not self._occupied(defending):
                ended = "attacked_location_unoccupied"
            elif not self._occupied(attacking):
                ended = "attacking_location_unoccupied"
        return fought_battles, removed, ended

    def _capture(self, attacking: dict[str, Any], defending: dict[str, Any]) -> dict[str, Any]:
        """Whether the attacker must capture the location it left unoccupied, and how many men may move in: all but
        the last man unless the Hero or Sorcerer stays (wizards-quest/clarify-capture-with-last-man)."""
        captured = not self._occupied(defending) and self._occupied(attacking)
        men = attacking.get("men", 0)
        may_move = men - (0 if attacking.get("hero") or attacking.get("sorcerer") else 1)
        return {
            "attacked_location_unoccupied": not self._occupied(defending),
            "must_capture": captured and may_move >= 1,
            "men_that_may_move_in": max(may_move, 0) if captured else 0,
            "rules": self._refs(self.CAPTURE_RULE, "wizards-quest/clarify-capture-with-last-man"),
        }

    def _treasure(self, captured: bool, treasure_here: str | None, found_before: int) -> dict[str, Any] | None:
        """A treasure in the captured location: the player's own is removed and found - no reward
        (wizards-quest/clarify-treasure-rewards) - and the third wins (wizards-quest/goal); the dummy and another
        player's treasure count for nothing (wizards-quest/treasure-capture, wizards-quest/dummy-treasure)."""
        if treasure_here is None:
            return None
        found = captured and treasure_here == "own"
        total = found_before + int(found)
        return {
            "found": found,
            "own_treasures_found": total,
            "game_won": total >= self.TREASURES_TO_WIN,
            "reward": None,
            "rules": self._refs("wizards-quest/treasure-capture", "wizards-quest/goal", "wizards-quest/dummy-treasure"),
            "clarifications": self._refs("wizards-quest/clarify-treasure-rewards"),
        }

    # -- the Dragon Attack Phase, and where scattered pieces go ---------------------------------------------------------

    def _landing(self, number: int, landing: Landing) -> dict[str, Any]:
        """One landing: the Dragon devours up to its roll of the orcs or the player's pieces there, men first and the
        Hero or Sorcerer last (wizards-quest/clarify-hero-sorcerer-losses); it moves on unless it devoured a man, a
        Hero or a Sorcerer (wizards-quest/dragon-attack)."""
        force: dict[str, Any] = {
            "men": landing.get("men", 0),
            "orcs": landing.get("orcs", 0),
            "hero": landing.get("hero", False),
            "sorcerer": landing.get("sorcerer", False),
        }
        if force["orcs"] and (force["men"] or force["hero"] or force["sorcerer"]):
            raise REFUSALS("landing-orcs-with-players-pieces", rule=self.OCCUPANCY_RULE, number=number)
        kind = "orcs" if force["orcs"] else "men"
        before = force[kind]
        devoured, leaders = self._lose(force, landing["devour_roll"])
        men_eaten = kind == "men" and (before - force["men"] > 0 or bool(leaders))
        return {
            "region": landing["region"],
            "territory": landing["territory"],
            "devoured": devoured,
            "leaders_devoured": leaders,
            "left": force,
            "moves_on": not men_eaten,
        }

    @check("dragon_phase")
    def dragon_phase(self, landings: list[Landing]) -> dict[str, Any]:
        """The Dragon Attack Phase: each landing in order (a region and a territory by 1d6 each, the devour roll, and
        what the territory holds), until the Dragon has devoured at least 1 man, Hero or Sorcerer; it never devours
        the Wizard, who is no piece of any force."""
        steps: list[dict[str, Any]] = []
        for number, landing in enumerate(landings, 1):
            if steps and not steps[-1]["moves_on"]:
                raise REFUSALS("landing-after-the-dragon-stopped", rule=self.PHASE_RULES["dragon-attack"], number=number, previous=number - 1)
            steps.append(self._landing(number, landing))
        leaders = any(step["leaders_devoured"] for step in steps)
        return {
            "landings": steps,
            "phase_over": bool(steps) and not steps[-1]["moves_on"],
            "rules": [self.PHASE_RULES["dragon-attack"]],
            "clarifications": [self.PHASE_RULES["clarify-hero-sorcerer-losses"]] if leaders else [],
        }

    def _destination(self, battle_location: str, place: Destination) -> None:
        """A location scattered pieces may go to: another location than the battle's (wizards-quest/scatter), held by
        their owner or unoccupied (wizards-quest/clarify-scatter-destination), never a fifth orc
        (wizards-quest/occupancy-rules), never a Hero and a Sorcerer together (wizards-quest/hero-and-sorcerer-cost)."""
        where = place["location"]
        if where == battle_location:
            raise REFUSALS("scatter-to-the-battle-location", rule=self.PHASE_RULES["scatter"], location=where)
        if place["holds"] in ("other_player", "orcs"):
            refusal = "scatter-to-another-players-location" if place["holds"] == "other_player" else "scatter-to-an-orc-location"
            raise REFUSALS(refusal, rule=self.PHASE_RULES["clarify-scatter-destination"], location=where)
        if place.get("orcs", 0) + place.get("orcs_there", 0) > self.MAX_ORCS:
            raise REFUSALS("scatter-too-many-orcs", rule=self.OCCUPANCY_RULE, location=where, most=self.MAX_ORCS)
        hero = place.get("hero") or place.get("hero_there")
        sorcerer = place.get("sorcerer") or place.get("sorcerer_there")
        if hero and sorcerer:
            raise REFUSALS("scatter-hero-and-sorcerer", rule=self.PHASE_RULES["hero-and-sorcerer-cost"], location=where)

    @check("scatter")
    def scatter(self, pieces: Pieces, battle_location: str, destinations: list[Destination]) -> dict[str, Any]:
        """Where the pieces a Sorcerer scatters may go: every scattered piece placed, each destination checked."""
        if pieces.get("men") and pieces.get("orcs"):
            raise REFUSALS("orcs-with-players-pieces", rule=self.OCCUPANCY_RULE)
        for place in destinations:
            self._destination(battle_location, place)
        placed = {
            "men": sum(p.get("men", 0) for p in destinations),
            "orcs": sum(p.get("orcs", 0) for p in destinations),
            "hero": sum(bool(p.get("hero")) for p in destinations),
            "sorcerer": sum(bool(p.get("sorcerer")) for p in destinations),
        }
        wanted = {
            "men": pieces.get("men", 0),
            "orcs": pieces.get("orcs", 0),
            "hero": int(pieces.get("hero", False)),
            "sorcerer": int(pieces.get("sorcerer", False)),
        }
        if placed != wanted:
            raise REFUSALS("scattered-pieces-not-placed", rule=self.PHASE_RULES["scatter"], placed=placed, wanted=wanted)
        return {
            "placed": {"men": placed["men"], "orcs": placed["orcs"], "hero": bool(placed["hero"]), "sorcerer": bool(placed["sorcerer"])},
            "destinations": [place["location"] for place in destinations],
            "rules": [self.PHASE_RULES["scatter"]],
            "clarifications": [self.PHASE_RULES["clarify-scatter-destination"]],
        }

    # -- the Orc Phase: growth, the order of the rampages, settlement ----------------------------------------------------

    def _grow(self, roll: int, orcs: list[dict[str, int]], castles_next_to: dict[int, list[int]] | None) -> None:
        """One player's growth roll: 1 orc more in every orc-held territory of the region rolled and every orc-held castle
        next to that region's territories, at most 4 in a location (wizards-quest/orc-growth). The map is not printed:
        the castles next to a region are an input when an orc-held castle might be one."""
        if castles_next_to is None or roll not in castles_next_to:
            if any("castle" in place for place in orcs):
                raise REFUSALS(
                    "growth-needs-the-castles-of-a-region", rule=self.PHASE_RULES["orc-growth"], region=roll, field="castles_adjacent_to_region"
                )
        castles = set((castles_next_to or {}).get(roll, []))
        for place in orcs:
            if place.get("region") == roll or place.get("castle") in castles:
                place["orcs"] = min(place["orcs"] + self.ORC_GROWTH, self.MAX_ORCS)

    @staticmethod
    def _rampage_key(place: dict[str, int]) -> tuple[int, int, int]:
        """Territories before castles, lower regions first, lower territories first, lower castles first
        (wizards-quest/orc-rampage-order)."""
        if "castle" in place:
            return (1, place["castle"], 0)
        return (0, place["region"], place["territory"])

    @check("orc_phase")
    def orc_phase(
        self,
        rolls: list[int],
        orc_locations: list[OrcTerritory | OrcCastle],
        castles_adjacent_to_region: list[RegionCastles] | None = None,
        unoccupied_after_rampages: int | None = None,
    ) -> dict[str, Any]:
        """The Orc Phase as far as it goes without the map: growth for each player's roll, the locations that rampage
        (4 orcs) in the order they attack, and the orcs settled in the locations left unoccupied after the rampages.
        Each rampage itself is the orc_rampage check: the players read the locations adjacent to it off the map."""
        orcs = [cast("dict[str, int]", dict(place)) for place in orc_locations]  # either form's values are all numbers
        castles_next_to = (
            None if castles_adjacent_to_region is None else {entry["region"]: list(entry["castles"]) for entry in castles_adjacent_to_region}
        )
        for roll in rolls:
            self._grow(roll, orcs, castles_next_to)
        rampaging = sorted((place for place in orcs if place["orcs"] >= self.RAMPAGE_AT), key=self._rampage_key)
        return {
            "orcs_after_growth": orcs,
            "rampage_order": [{k: v for k, v in place.items() if k != "orcs"} for place in rampaging],
            "orcs_settled": None if unoccupied_after_rampages is None else unoccupied_after_rampages * self.SETTLED_PER_LOCATION,
            "rules": [self.PHASE_RULES[name] for name in ("orc-growth", "orc-rampage", "orc-rampage-order", "orc-settlement")],
        }

    @staticmethod
    def _not_a_target(place: Mapping[str, Any]) -> str | None:
        """Why rampaging orcs do not attack a location (wizards-quest/orc-attack-targets), or None: only locations
        occupied by players, never one with a Hero or the Dragon, never a territory of the Wizard's region."""
        if place.get("hero"):
            return "hero"
        if place.get("dragon"):
            return "dragon"
        if place.get("in_wizards_region"):
            return "wizards_region"
        if not (place.get("men") or place.get("sorcerer")):
            return "orcs" if place.get("orcs") else "unoccupied"
        return None

    def _neighbours(self, location: str, neighbours: list[Neighbour]) -> list[dict[str, Any]]:
        """The adjacent locations as given, checked: each once, not the rampaging one, no impossible space, those
        through the Great Tunnel last (wizards-quest/orc-attack-direction)."""
        places: list[dict[str, Any]] = []
        tunnel_seen = False
        for place in neighbours:
            name = place["location"]
            if name == location:
                raise REFUSALS("neighbour-is-the-rampaging-location", rule=self.PHASE_RULES["orc-attack-direction"], location=name)
            if any(other["location"] == name for other in places):
                raise REFUSALS("neighbour-given-twice", rule=self.PHASE_RULES["orc-attack-direction"], location=name)
            self._force_range("defender", dict(place), None, None)  # refuses an impossible space, as `attack` does
            through_tunnel = place.get("attacked_across") == "great_tunnel"
            if tunnel_seen and not through_tunnel:
                tunnel = next(other["location"] for other in places if other.get("attacked_across") == "great_tunnel")
                raise REFUSALS(
                    "great-tunnel-before-others",
                    rule=(self.PHASE_RULES["orc-attack-direction"], self.PHASE_RULES["clarify-rampage-great-tunnel"]),
                    location=tunnel,
                )
            tunnel_seen = tunnel_seen or through_tunnel
            places.append({"men": 0, "orcs": 0, "hero": False, "sorcerer": False, **place})
        return places

    @check("orc_rampage")
    def orc_rampage(self, rampaging_location: str, orcs: int, neighbours: list[Neighbour], rolls: list[RampageRoll]) -> dict[str, Any]:
        """One location's Orc rampage. The map is not printed: the players give the locations adjacent to the rampaging
        one clockwise, from the lowest-numbered territory of the lowest-numbered region, those through the Great
        Tunnel last (wizards-quest/orc-attack-direction; clarify-rampage-great-tunnel), and what each holds. Round and
        round, each legal target (a player's location without a Hero or the Dragon, not a territory of the Wizard's
        region: wizards-quest/orc-attack-targets) is attacked once a circle with one Battle, both sides rolling (the
        `attack` check's Battle: wizards-quest/clarify-battle-resolution); a target left unoccupied takes 1 orc from the
        rampaging location unless that would leave it unoccupied (wizards-quest/orc-rampage-aftermath), and is then the
        orcs' own, no target. The rampage stops when 1 orc or none is left or no legal target remains
        (wizards-quest/orc-rampage); with too few rolls given, the next target is named."""
        if orcs < self.RAMPAGE_AT:
            raise REFUSALS("rampage-below-4-orcs", rule=self.PHASE_RULES["orc-rampage"], at=self.RAMPAGE_AT, orcs=orcs)
        places = self._neighbours(rampaging_location, neighbours)
        starting = [{"location": place["location"], "not_a_target": self._not_a_target(place)} for place in places]
        force: dict[str, Any] = {"orcs": orcs}
        attacks: list[dict[str, Any]] = []
        position, circle = 0, 1
        next_target: str | None = None
        while not (ended := self._rampage_over(force, places)):
            while self._not_a_target(places[position]):
                position, circle = _clockwise(position, circle, len(places))
            target = places[position]
            if len(attacks) == len(rolls):  # too few rolls given: name the next target
                next_target = target["location"]
                break
            attacks.append(self._rampage_attack(force, target, rolls[len(attacks)], len(attacks) + 1, circle))
            position, circle = _clockwise(position, circle, len(places))
        used = len(attacks)
        if used < len(rolls):
            if ended == "one_orc_or_none_left":
                raise REFUSALS("rampage-over-orcs-left", rule=self.PHASE_RULES["orc-rampage"], number=used + 1, orcs=force["orcs"])
            raise REFUSALS("rampage-over-no-target", rule=self.PHASE_RULES["orc-attack-targets"], number=used + 1)
        return {
            "rampaging_location": rampaging_location,
            "targets_at_start": starting,
            "attacks": attacks,
            "ended": ended,
            "next_target": next_target,
            "targets_attacked": [attack["target"] for attack in attacks],
            "orcs_lost": sum(attack["attacker_losses"] for attack in attacks),
            "defender_losses": sum(attack["defender_losses"] for attack in attacks),
            "orcs_left": force["orcs"],
            "orcs_moved_to": [attack["target"] for attack in attacks if attack["orc_moved_in"]],
            "neighbours_after": [{k: place[k] for k in ("location", "men", "orcs", "hero", "sorcerer")} for place in places],
            "rules": [self.PHASE_RULES[name] for name in ("orc-rampage", "orc-attack-direction", "orc-attack-targets", "orc-rampage-aftermath")],
            "clarifications": [
                self.PHASE_RULES[name] for name in ("clarify-rampage-great-tunnel", "clarify-battle-resolution", "clarify-hero-sorcerer-losses")
            ],
        }

    def _rampage_over(self, force: dict[str, Any], places: list[dict[str, Any]]) -> str | None:
        """Why the rampage stops (wizards-quest/orc-rampage): 1 orc or none left, or no legal target; None: it goes on."""
        if force["orcs"] <= 1:
            return "one_orc_or_none_left"
        if all(self._not_a_target(place) for place in places):
            return "no_legal_target"
        return None

    def _rampage_attack(self, force: dict[str, Any], target: dict[str, Any], roll: RampageRoll, number: int, circle: int) -> dict[str, Any]:
        """One attack of the rampage: a Battle, both sides rolling (the forces changed by it); a target left
        unoccupied takes 1 orc unless that would leave the rampaging location unoccupied
        (wizards-quest/orc-rampage-aftermath)."""
        defending = {k: target[k] for k in ("men", "sorcerer")}
        fought = self._fight(force, defending, roll["orcs_roll"], roll["defender_roll"], target.get("terrain"), target.get("attacked_across"))
        target.update(defending)
        emptied = not self._occupied(defending)
        moved_in = emptied and force["orcs"] > 1  # 1 orc moves in unless the rampaging location would be left unoccupied
        if moved_in:
            force["orcs"] -= 1
            target["orcs"] = 1
        return {
            "number": number,
            "circle": circle,
            "target": target["location"],
            **fought,
            "orcs_left": force["orcs"],
            "target_after": {"men": target["men"], "sorcerer": target["sorcerer"], "orcs": target["orcs"]},
            "orc_moved_in": moved_in,
        }

    # -- free attacks, and the help an Attack may have ----------------------------------------------------------------

    def _leader_help(
        self, leader_assist: str | None, already_there: str | None, moment: str, free: bool, refuse: Callable[[str, str, str], None]
    ) -> tuple[bool | None, bool]:
        """A Hero or Sorcerer brought to the attacking location: only at the start, never in a free attack; with the
        other leader there, the two swap places (a Hero and a Sorcerer never share a space)."""
        if leader_assist is None:
            return None, False
        if leader_assist == already_there:
            raise REFUSALS("leader-already-in-the-attacking-location", rule=self.PHASE_RULES["hero-sorcerer-assist"], leader=leader_assist)
        if moment != "start":
            refuse("leader_only_at_start", "hero-sorcerer-assist", "a Hero or Sorcerer assists only at the start of the attack")
        return not free and moment == "start", already_there is not None

    @check("attack_help")
    def attack_help(
        self,
        target_kind: str,
        dragon_or_wizard_in_attacking_location: bool = False,
        others_in_that_location: bool = False,
        leader_assist: str | None = None,
        leader_in_attacking_location: str | None = None,
        moment: str = "start",
    ) -> dict[str, Any]:
        """Whether an Attack is a free attack (the Dragon or the Wizard in the attacking forces' own location: no help,
        and other hostile forces there only once it is removed), whether men from adjacent locations may assist (at the
        start and before each roll), and whether the player's Hero or Sorcerer may come to help (only at the start,
        swapping with the other one already there)."""
        reasons: list[dict[str, str]] = []

        def refuse(code: str, rule: str, message: str) -> None:
            reasons.append({"code": code, "rule": self.PHASE_RULES[rule], "message": message})

        free = target_kind in ("dragon", "wizard") and dragon_or_wizard_in_attacking_location
        if free and leader_assist is not None:
            refuse("no_help_in_free_attack", "free-attack", "a free attack has no help")
        leader_allowed, swap = self._leader_help(leader_assist, leader_in_attacking_location, moment, free, refuse)
        rule = "free-attack" if free else "ordinary-attack-on-dragon-or-wizard"
        return {
            "free_attack": free,
            "men_assist_allowed": not free,
            "leader_assist_allowed": leader_allowed,
            "swap": bool(leader_allowed) and swap,
            "others_only_after": free and others_in_that_location,
            "reasons": reasons,
            "rules": [self.PHASE_RULES[name] for name in ("assist", "hero-sorcerer-assist")]
            + ([self.PHASE_RULES[rule]] if target_kind in ("dragon", "wizard") else []),
        }


def _clockwise(position: int, circle: int, count: int) -> tuple[int, int]:
    """The next of `count` locations round the circle, and the circle it is in (a new one after the last)."""
    return (0, circle + 1) if position + 1 == count else (position + 1, circle)


def _connected_groups(names: list[str], next_to: dict[str, set[str]]) -> list[list[str]]:
    """The names in groups of those joined by a chain of neighbours, each group and its names in the order given."""
    groups: list[list[str]] = []
    placed: set[str] = set()
    for start in names:
        if start in placed:
            continue
        group, waiting = {start}, [start]
        while waiting:
            for neighbour in next_to[waiting.pop()] - group:
                group.add(neighbour)
                waiting.append(neighbour)
        placed |= group
        groups.append([name for name in names if name in group])
    return groups
