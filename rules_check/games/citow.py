"""Chaos in the Old World: the checks, with every number read from the entries named next to it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Literal, NotRequired, TypedDict, cast

from ..core import DataFileError, Game, GameData, Refusals, RulesError, check

REFUSALS = Refusals(
    {
        # the battle: figures, cards, targets and hits
        "unknown-powers": "unknown Power(s): {unknown}; Powers are {powers}",
        "unknown-power": "unknown Power '{power}'",
        "unknown-power-of-card": "unknown Power '{power}' of card {card}",
        "stats-missing": "give the stats (attack, defense) of {kind}: the sources do not print them",
        "attack-value-missing": "give the attack value of {kind}",
        "no-such-target": "no {target} in this region",
        "target-of-several-powers": "{target} belongs to {owners}: name the target as one of {targets}",
        "negative-hits": "{roller}: a negative number of hits on {target}",
        "more-hits-than-rolled": "{roller}: assigns more hits than the {hits} it has",
        "own-followers": "{roller}: a player cannot assign hits to his own followers ({kind})",
        "only-hits-from-sixes": "{roller}: only hits from dice that rolled {six} can be assigned to {kind}; {sixes} available",
        "too-many-hits-on-peasants": "{roller}: {hits} hits on Peasant tokens, only {peasants} in the region, each takes {per_token} hit",
        "peasant-token-hits": "{roller}: a Peasant token takes exactly {per_token} hit",
        "defense-unknown": "{roller}: give the defense of {kind} to assign hits to it (known only to be at least {least})",
        "too-few-hits-to-kill": ("{roller}: {hits} hit(s) cannot kill {kind} (defense {defense}); a figure cannot be given fewer hits than it needs"),
        "none-left-standing": "{roller}: no {kind} of {owner} left standing to take {hits} hit(s)",
        "unassigned-peasant-left": ("{roller}: {hits} hit(s) unassigned while a Peasant token remains; a player able to assign hits must do so"),
        "unassigned-could-kill": (
            "{roller}: {hits} hit(s) unassigned but {kind} of {owner} (defense {defense}) could be killed; hits must be assigned when possible"
        ),
        "unassigned-might-kill": "{roller}: give the defense of {kind}: {hits} unassigned hit(s) might kill it",
        "unassigned-held-hits": "{roller}: {hits} hit(s) unassigned but {kind} of {owner} carries held hits they would complete",
        "unknown-rollers": ("no roller named {rollers}; rollers are the Powers present and <power>_<card> for start-of-battle cards"),
        "roll-refused": "{roller}: {problem}",
        # battle dice
        "results-out-of-range": "results must be 1-{sides}",
        "too-many-results": "too many results: {dice} dice and {explosions} explosion(s) give {rolls} rolls, not {results}",
        "too-few-results": "too few results: {dice} dice and {explosions} explosion(s) need {rolls} rolls, got {results}",
        # domination, corruption and ruination
        "skull-throne-attack-values": (
            "The Skull Throne counts figures by their attack values: give attack_values for {figures} "
            "(from the Power sheet; the sources print no figure stats)"
        ),
        "resistance-only-for-kislev": "the sources give resistance and conquer value only for Kislev; give both for other regions",
        "unknown-regions": "unknown region(s): {unknown}; regions are {regions}",
        "unknown-region": "unknown region '{region}'; regions are {regions}",
        "region-given-twice": "region {region} is given twice",
        "card-values-needed": "only ruination card 1's values are in the sources: give card_values {{first, second}}",
        "already-ruined-beyond-cards": "only {cards} ruination cards exist: {regions} regions cannot already be ruined",
        "ruined-beyond-cards": "only {cards} ruination cards exist: {regions} regions cannot be ruined",
        "ruination-cards-left": "{ruined} ruined region(s) leave {left} of the {cards} ruination cards, not {given}",
        "too-many-noble-tokens": (
            "{count} Noble tokens on the board ({where}), but the game has {supply}: "
            "Old World tokens of each type are strictly limited, none is replaced when they run out"
        ),
        "too-many-skaven-tokens": (
            "{count} Skaven tokens on the board ({where}), but the game has {supply}: "
            "Old World tokens of each type are strictly limited, none is replaced when they run out"
        ),
        "too-many-warpstone-tokens": (
            "{count} Warpstone tokens on the board ({where}), but the game has {supply}: "
            "Old World tokens of each type are strictly limited, none is replaced when they run out"
        ),
        "too-many-figures": (
            "{count} figures of {power} on the board ({where}), but {power} has {owned}: "
            "a Power summons only its own figures, from off the board or from another region"
        ),
        "count-in-region": "{region} {count}",
        # threat dials and the end of the game
        "dial-instruction-count-missing": "{power}: give X of the instruction {kind}, the number its dial window shows",
        "one-instruction-per-tick": "{power}'s dial turns {ticks} tick(s) and shows one instruction per tick, not {given}",
        "condition-not-quoted": "the sources do not quote {power}'s dial advancement condition: give condition_met for each event",
        "events-or-counters": "{power}: give events or counters, not both",
        "dial-past-victory": "{power}'s dial is at {position}, at or past its Victory window ({victory_at}): the game ended then",
        "victory-points-break-the-tie": "{powers} tie, and victory points breaks the tie: give the victory points of {missing}",
        "threat-breaks-the-tie": "{powers} tie, and threat breaks the tie: give the threat of {missing}",
        "tie-after-the-dial-step": "{problem} (the threat each dial shows after the step: windows.<position>.threat)",
        "threat-missing": "give the threat of {powers}",
        "hero-tokens-tie": "{powers} tie for the highest threat ({threat}); the sources do not say who is struck: give tie_break",
        "unknown-remove-instruction": "unknown instruction '{instruction}'; known: {known}",
        "instruction-cannot-be-carried-out": "the instruction cannot be carried out",
        # set-up, the Old World track, summoning, conflicting effects
        "setup-players": "the sources give set-up figures for {players} players only",
        "unknown-track-effects": "unknown effect(s) {unknown}; known: {known}",
        "track-spaces": "the Old World track has {count} spaces ({spaces}), not {given}",
        "card-twice-on-the-track": "a card cannot lie on two spaces, nor be drawn while it lies on the track",
        "comet-not-given": "say whether '{card}' has the twin-tailed comet symbol (twin_tailed_comet)",
        "region-adjacent-to-itself": "a region is not adjacent to itself: {region}",
        "adjacent-and-not-adjacent": "{first} and {second} are given as both adjacent and not adjacent",
        "no-figure-in-source": "the figure is taken from {region}, where the Power has no figure",
        "exactly-one-action": "give exactly one action: summon or play_card",
        "own-regions-needed": "give regions_with_own_figures (before the action) to judge where a figure may be placed",
        "card-spaces-of-a-region": "a region has {spaces} card spaces: {regions}",
        "not-among-the-players": "{power} is not among the players {players}",
        "unknown-condition": "unknown condition '{condition}' of {card}",
    }
)


def _region_key(english_name: str) -> str:
    return re.sub(r"^the_", "", english_name.lower().replace(" ", "_"))


def _card_1_table(data: GameData) -> dict[str, Any]:
    """Region -> (VP for the most corruption, VP for the second most), from ruination card 1's table."""
    return {_region_key(row["region"]["en"]): (row["first"], row["second"]) for row in data.table("citow/ruination-card-1-table")}


def _region_order(data: GameData) -> tuple[str, ...]:
    order = data.param("citow/standard-region-order", "order").split(",")
    return tuple(r.strip().replace("-", "_") for r in order)


def _setup(data: GameData) -> dict[str, Any]:
    setup = data.pick(
        "citow/setup-steps",
        (
            "old_world_cards_4_players",
            "old_world_cards_3_players",
            "starting_hand",
            "starting_vp",
            "start_noble_tokens",
            "start_warpstone_tokens",
            "start_peasant_tokens",
        ),
    )
    return {
        "old_world_cards": {4: setup["old_world_cards_4_players"], 3: setup["old_world_cards_3_players"]},
        "starting_hand": setup["starting_hand"],
        "starting_vp": setup["starting_vp"],
        "start_tokens": {
            "noble": setup["start_noble_tokens"],
            "warpstone": setup["start_warpstone_tokens"],
            "peasant": setup["start_peasant_tokens"],
        },
    }


POWERS = ("khorne", "nurgle", "tzeentch", "slaanesh")  # the Power order, from citow/power-order

PEASANT = "peasant_token"


Power = Literal["khorne", "nurgle", "tzeentch", "slaanesh"]


class ChaosCard(TypedDict):
    """A Chaos card a Power played in the region (dominance_input.chaos_cards.*, corruption_phase_input.regions.chaos_cards.*)."""

    name: NotRequired[str]
    cost: int


class CardValues(TypedDict):
    """The ruination card's awards (ruination_scoring_input.card_values)."""

    first: int
    second: int


class FigureStats(TypedDict):
    """A figure's attack and defense values, which the sources do not print (battle_input.stats.*)."""

    attack: NotRequired[int]
    defense: NotRequired[int]
    defense_at_least: NotRequired[int]
    only_hit_by_sixes: NotRequired[bool]


class BattleCard(TypedDict):
    """A Chaos card played in the battle's region (battle_input.cards)."""

    power: Power
    card: str
    timing: NotRequired[Literal["start_of_battle", "battle"]]
    dice: NotRequired[int]
    defense_bonus: NotRequired[int]


class WhatIf(TypedDict):
    """The battle re-run with other rolls (battle_input.what_if)."""

    name: str
    dice_rolled: NotRequired[dict[str, list[int]]]
    hit_assignment: NotRequired[dict[str, dict[str, int]]]
    report: NotRequired[list[str]]


class DialEvent(TypedDict):
    """What a Power did in a region and phase (dial_advancement_counters_input.events, round_dials_input.powers.*.events)."""

    region: NotRequired[str]
    phase: NotRequired[str]
    enemy_figures_killed: NotRequired[int]
    corruption_placed: NotRequired[int]
    cultists: NotRequired[int]
    tokens: NotRequired[list[str]]
    condition_met: NotRequired[bool]


class OldWorldTrack(TypedDict):
    """The Old World track, space -> card or null (old_world_track_input.old_world_track)."""

    space_1: NotRequired[str | None]
    space_2: NotRequired[str | None]


# a figure summoned (summoning_input.summon); `class` and `from` are Python keywords, hence the functional form
Summon = TypedDict(
    "Summon",
    {
        "figure": str,
        "class": NotRequired[Literal["cultist", "warrior", "greater_daemon"]],
        "region": str,
        "from": NotRequired[str],
        "last_in_source": NotRequired[bool],
    },
)


class PlayCard(TypedDict):
    """A Chaos card played into a region (summoning_input.play_card)."""

    card: str
    region: str


class RegionCard(TypedDict):
    """A card's effect in the region (conflicting_effects_input.region_cards)."""

    power: Power
    card: str
    kind: Literal["forbidding", "permitting"]
    action: str
    count: NotRequired[int]
    condition: NotRequired[Literal["dominates"]]
    effect: NotRequired[str]


class RegionSpec(TypedDict):
    """A region in the Corruption Phase (corruption_phase_input.regions)."""

    region: str
    figures: NotRequired[dict[str, dict[str, int]]]
    chaos_cards: NotRequired[dict[str, list[ChaosCard]]]
    resistance: NotRequired[int]
    conquer_value: NotRequired[int]
    noble_tokens: NotRequired[int]
    skaven_tokens: NotRequired[int]
    corruption_before: NotRequired[dict[str, int]]
    cultists: NotRequired[dict[str, int]]
    warpstone_tokens: NotRequired[int]
    placed_earlier_this_round: NotRequired[list[Power]]
    attack_values: NotRequired[dict[str, int]]


# the kinds of threat-dial instructions a player gives (citow/dial-instruction-list): those that do something
# (DIAL_EFFECTS); Start is never revealed by a tick, and the Victory! window is given as victory_at
DialKind = Literal[
    "gain_vp",
    "place_warpstone_tokens",
    "place_noble_tokens",
    "draw_chaos_cards",
    "remove_corruption_tokens",
    "remove_old_world_tokens",
    "upgrade_card",
]


class DialInstruction(TypedDict):
    """A threat-dial instruction (dial_instruction): its kind, and X, the number its window shows (none for the Upgrade Card)."""

    kind: DialKind
    count: NotRequired[int]


class DialWindow(TypedDict):
    """The dial's windows at one position (round_dials_input.powers.*.windows.*)."""

    instruction: NotRequired[DialInstruction]
    threat: NotRequired[int]


class PowerDial(TypedDict):
    """A Power's dial in the dial step (round_dials_input.powers.*)."""

    position: int
    victory_at: NotRequired[int]
    events: NotRequired[list[DialEvent]]
    counters: NotRequired[int]
    windows: NotRequired[dict[str, DialWindow]]
    victory_points: NotRequired[int]


class _Battle:
    def __init__(self, rules: Rules, figures: dict[str, Any], stats: dict[str, FigureStats], cards: list[BattleCard], peasant_tokens: int):
        self.rules = rules
        unknown = [p for p in figures if p not in POWERS]
        if unknown:
            raise REFUSALS("unknown-powers", unknown=unknown, powers=list(POWERS))
        self.powers = [p for p in POWERS if p in figures]
        self.stats = stats
        self._check_stats(figures)
        self.standing = {p: {k: n for k, n in figures[p].items() if n} for p in self.powers}  # on the board
        self.knocked: dict[str, dict[str, int]] = {p: {} for p in self.powers}  # knocked over in the main battle, still rolling
        self.removed: dict[str, dict[str, int]] = {p: {} for p in self.powers}  # removed at once by start-of-battle hits
        self.held: list[list[Any]] = []  # start-of-battle hits kept on one figure: [by, power, kind, hits, roller]
        self.peasants = peasant_tokens
        self.to_sheet: dict[str, int] = {}
        self.figures_hit: list[dict[str, Any]] = []
        self.cards = [self._card_in_play(card) for card in cards]
        self.bonus = {p: sum(c.get("defense_bonus", 0) for c in self.cards if c["power"] == p) for p in POWERS}

    def _check_stats(self, figures: dict[str, Any]) -> None:
        """Every figure on the board needs its stats, with at least an attack value: the sources print none."""
        for power in self.powers:
            for kind, count in figures[power].items():
                if count and kind not in self.stats:
                    raise REFUSALS("stats-missing", kind=kind)
                if count and "attack" not in self.stats[kind]:
                    raise REFUSALS("attack-value-missing", kind=kind)

    def _card_in_play(self, card: BattleCard) -> dict[str, Any]:
        """A card's battle effect: the numbers the sources state for it (Rules.KNOWN_CARDS), overridden by those given."""
        effect = {
            **self.rules.KNOWN_CARDS.get(card["card"], {}),
            **{k: v for k, v in card.items() if k not in ("power", "card")},
        }
        if card["power"] not in POWERS:
            raise REFUSALS("unknown-power-of-card", power=card["power"], card=card["card"])
        return {"power": card["power"], "card": card["card"], **effect}

    def owner(self, target: str) -> tuple[str, str]:
        """(Power, figure) of a hit's target: `figure`, the one Power with such figures in the battle, or `power/figure`."""
        if "/" in target:
            power, kind = target.split("/", 1)
            if power not in self.powers or not self.fights_with(power, kind):
                raise REFUSALS("no-such-target", target=target)
            return power, kind
        owners = [p for p in self.powers if self.fights_with(p, target)]
        if not owners:
            raise REFUSALS("no-such-target", target=target)
        if len(owners) > 1:
            raise REFUSALS("target-of-several-powers", target=target, owners=owners, targets=[f"{owner}/{target}" for owner in owners])
        return owners[0], target

    def fights_with(self, power: str, kind: str) -> bool:
        """Whether a Power has figures of a kind in this battle: standing, knocked over or removed."""
        return kind in self.standing[power] or kind in self.knocked[power] or kind in self.removed[power]

    def defense(self, power: str, kind: str) -> tuple[int | None, int]:
        """(defense or None, lower bound) of a figure, with the defense bonuses of its Power's cards."""
        stat = self.stats.get(kind, {})
        if "defense" in stat:
            value = stat["defense"] + self.bonus[power]
            return value, value
        return None, stat.get("defense_at_least", 1) + self.bonus[power]

    def fresh(self, power: str, kind: str) -> int:
        """Figures of a kind still standing and carrying no held hits."""
        held = sum(1 for h in self.held if h[1] == power and h[2] == kind)
        return int(self.standing[power].get(kind, 0) - self.knocked[power].get(kind, 0) - held)

    def dice_of(self, power: str) -> int:
        attack = sum(self.stats[k]["attack"] * n for k, n in self.standing[power].items())
        cards = sum(c.get("dice", 0) for c in self.cards if c["power"] == power and c.get("timing", "battle") == "battle")
        return int(attack + cards)

    def early_rollers(self) -> list[tuple[str, str, int]]:
        rollers: dict[str, tuple[str, str, int]] = {}
        for power in POWERS:
            for c in self.cards:
                if c["power"] == power and c.get("timing") == "start_of_battle" and c.get("dice"):
                    name = f"{power}_{c['card']}"
                    rollers[name] = (name, power, rollers.get(name, (0, 0, 0))[2] + c["dice"])
        return list(rollers.values())

    def enemy_figures(self, power: str) -> list[tuple[str, str, int | None, int]]:
        """(Power, figure kind, defense or None, its lower bound) of the other Powers' figures that can still be hit."""
        return [
            (other, kind, *self.defense(other, kind))
            for other in self.powers
            if other != power
            for kind in self.standing[other]
            if self.fresh(other, kind) > 0
        ]

    def takes_place(self) -> bool:
        """A battle is fought where some Power can roll battle dice and has a legal target (citow/battle-phase-overview)."""
        rolling = {p for p in self.powers if self.dice_of(p) > 0} | {power for _, power, dice in self.early_rollers() if dice > 0}
        return any(self.peasants or self.enemy_figures(p) for p in rolling)

    def cannot_target(self, power: str, pool: int) -> list[str]:
        out = []
        for _other, kind, value, least in self.enemy_figures(power):
            if (value if value is not None else least) > pool:
                out.append(kind)
        return out

    def out_of_reach(self, power: str, pool: int) -> list[str]:
        """The enemy figures a Power's pool of hits cannot kill (cannot_target), but for those carrying its held
        start-of-battle hits that the pool would complete."""
        held_need = {h[2]: self.defense(h[1], h[2])[0] - h[3] for h in self.held if h[0] == power}
        return [k for k in self.cannot_target(power, pool) if not (k in held_need and held_need[k] <= pool)]

    def kill(self, by: str, power: str, kind: str, hits: int, early: bool, roller: str) -> None:
        if early:
            self.standing[power][kind] -= 1
            self.removed[power][kind] = self.removed[power].get(kind, 0) + 1
        else:
            self.knocked[power][kind] = self.knocked[power].get(kind, 0) + 1
        value = self.defense(power, kind)[0] or 0  # a figure is killed only once its defense is known
        self.figures_hit.append(
            {
                "by": roller,
                "power": power,
                "figure": kind,
                "hits": hits,
                "defense": value,
                "over_defense": hits - value,
                "killed": True,
                "removed_before_battle": early,
            }
        )

    def assign(self, roller: str, power: str, hits: int, sixes: int, assignment: dict[str, Any], early: bool) -> int:
        """Apply one roll's hits; returns the hits left unassigned."""
        assigned = 0
        for target, n in assignment.items():
            if n < 0:
                raise REFUSALS("negative-hits", roller=roller, target=target)
            if n == 0:
                continue
            assigned += n
            if assigned > hits:
                raise REFUSALS("more-hits-than-rolled", roller=roller, hits=hits)
            if target == PEASANT:
                self.hit_peasants(roller, power, n)
                continue
            owner, kind = self.owner(target)
            if owner == power:
                raise REFUSALS("own-followers", rule=self.rules.ASSIGNING_HITS, roller=roller, kind=kind)
            if self.stats.get(kind, {}).get("only_hit_by_sixes"):
                if n > sixes:
                    raise REFUSALS(
                        "only-hits-from-sixes", rule=self.rules.HITS_ONLY_ON_SIX, roller=roller, six=self.rules.EXPLODE_ON, kind=kind, sixes=sixes
                    )
                sixes -= n
            self.hit_figures(roller, power, owner, kind, n, early)
        return hits - assigned

    def hit_peasants(self, roller: str, power: str, n: int) -> None:
        """n hits on the region's Peasant tokens: each takes exactly PEASANT_TOKEN_HITS and goes to the Power's sheet."""
        per_token = self.rules.PEASANT_TOKEN_HITS
        if n > self.peasants * per_token:
            raise REFUSALS(
                "too-many-hits-on-peasants", rule=self.rules.ASSIGNING_HITS, roller=roller, hits=n, peasants=self.peasants, per_token=per_token
            )
        if n % per_token:
            raise REFUSALS("peasant-token-hits", rule=self.rules.ASSIGNING_HITS, roller=roller, per_token=per_token)
        self.peasants -= n // per_token
        self.to_sheet[power] = self.to_sheet.get(power, 0) + n // per_token

    def hit_figures(self, roller: str, power: str, owner: str, kind: str, n: int, early: bool) -> None:
        """n hits of `power` on `owner`'s figures of a kind: held hits completed first, then whole figures killed."""
        value, least = self.defense(owner, kind)
        if value is None:
            raise REFUSALS("defense-unknown", roller=roller, kind=kind, least=least)
        left, last = n, False
        for h in [h for h in self.held if h[0] == power and h[1] == owner and h[2] == kind]:
            need = value - h[3]
            if left >= need:
                self.held.remove(h)
                left -= need
                last = True
                self.kill(power, owner, kind, h[3] + need, early, roller)
        while left >= value and self.fresh(owner, kind) > 0:
            left -= value
            self.kill(power, owner, kind, value, early, roller)
            last = True
        if left and last:
            self.figures_hit[-1]["hits"] += left
            self.figures_hit[-1]["over_defense"] += left
        elif left and early and self.fresh(owner, kind) > 0:
            self.held.append([power, owner, kind, left, roller])
        elif left and self.fresh(owner, kind) > 0:
            raise REFUSALS("too-few-hits-to-kill", roller=roller, hits=left, kind=kind, defense=value)
        elif left or not last:
            raise REFUSALS("none-left-standing", roller=roller, kind=kind, owner=owner, hits=n)

    def must_assign(self, roller: str, power: str, left: int, sixes: int) -> None:
        if left <= 0:
            return
        if self.peasants:
            raise REFUSALS("unassigned-peasant-left", roller=roller, hits=left)
        for other, kind, value, least in self.enemy_figures(power):
            reach = sixes if self.stats.get(kind, {}).get("only_hit_by_sixes") else left
            if value is not None and value <= reach:
                raise REFUSALS("unassigned-could-kill", roller=roller, hits=left, kind=kind, owner=other, defense=value)
            if value is None and least <= reach:
                raise REFUSALS("unassigned-might-kill", roller=roller, kind=kind, hits=left)
        for h in self.held:
            if h[0] == power and self.defense(h[1], h[2])[0] - h[3] <= left:
                raise REFUSALS("unassigned-held-hits", roller=roller, hits=left, kind=h[2], owner=h[1])

    def lose_held_hits(self, power: str, wasted_hits: dict[str, int]) -> None:
        """The start-of-battle hits held on figures that `power`'s main battle never completed are lost: wasted by
        the roller that made them, the figure hit but not killed."""
        for h in [h for h in self.held if h[0] == power]:
            self.held.remove(h)
            wasted_hits[h[4]] += h[3]
            self.figures_hit.append(
                {
                    "by": h[4],
                    "power": h[1],
                    "figure": h[2],
                    "hits": h[3],
                    "defense": self.defense(h[1], h[2])[0],
                    "over_defense": 0,
                    "killed": False,
                    "removed_before_battle": False,
                }
            )

    def dice_only(self) -> dict[str, Any]:
        """The battle's answer before any roll: each roller's dice, the figures' defense, whether a battle is fought."""
        return {
            "dice": {**{name: dice for name, _, dice in self.early_rollers()}, **{p: self.dice_of(p) for p in self.powers}},
            "defense": {p: {k: self.defense(p, k)[0] for k in self.standing[p]} for p in self.powers},
            "battle_takes_place": self.takes_place(),
        }

    def killed(self, figures: dict[str, Any]) -> dict[str, dict[str, int]]:
        """Each Power's figures killed, removed before the battle or knocked over in it."""
        return {
            p: {k: self.removed[p].get(k, 0) + self.knocked[p].get(k, 0) for k in figures[p] if self.removed[p].get(k, 0) + self.knocked[p].get(k, 0)}
            for p in self.powers
        }

    def survivors(self) -> dict[str, dict[str, int]]:
        """Each Power's figures left standing after the battle."""
        return {p: {k: n - self.knocked[p].get(k, 0) for k, n in self.standing[p].items() if n - self.knocked[p].get(k, 0)} for p in self.powers}

    def losses(self, figures: dict[str, Any]) -> dict[str, Any]:
        """The battle's outcome: defense values, figures removed, killed and left, figures hit, Peasant tokens."""
        killed, survivors = self.killed(figures), self.survivors()
        return {
            "defense": {p: {k: self.defense(p, k)[0] for k in figures[p] if figures[p][k]} for p in self.powers},
            "removed_before_battle": {p: dict(r) for p, r in self.removed.items() if r},
            "killed": killed,
            "survivors": survivors,
            "figures_hit": self.figures_hit,
            "peasant_tokens_to_power_sheet": self.to_sheet,
            "peasant_tokens_remaining": self.peasants,
        }


# the threat-dial instructions (citow/dial-instruction-list) that do something, by kind: what each counts, X of the
# instruction (the number its window shows) or one for the Upgrade Card, which has no number (COUNTLESS)
DIAL_EFFECTS = {
    "gain_vp": "vp_gained",
    "place_warpstone_tokens": "warpstone_tokens_placed",
    "place_noble_tokens": "noble_tokens_placed",
    "draw_chaos_cards": "chaos_cards_drawn",
    "remove_corruption_tokens": "corruption_tokens_to_remove",
    "remove_old_world_tokens": "old_world_tokens_to_remove",
    "upgrade_card": "upgrade_cards_brought_into_play",
}
COUNTLESS = ("upgrade_card",)


def _scorers(corruption: dict[str, int]) -> list[str]:
    """Powers that score a ruination card: all tied for the most tokens, or the most and all tied for second."""
    counts = sorted({n for n in corruption.values() if n > 0}, reverse=True)
    leaders = [p for p in POWERS if corruption.get(p, 0) == counts[0]] if counts else []
    if len(leaders) > 1 or len(counts) < 2:
        return leaders
    return leaders + [p for p in POWERS if corruption.get(p, 0) == counts[1]]


def _dial_instruction(power: str, instruction: DialInstruction) -> DialInstruction:
    """The instruction as the answer gives it back: its kind, and X unless the kind has none; RulesError for X left out."""
    kind = instruction["kind"]
    if kind in COUNTLESS:
        return {"kind": kind}
    if "count" not in instruction:
        raise REFUSALS("dial-instruction-count-missing", power=power, kind=kind)
    return {"kind": kind, "count": instruction["count"]}


def _dial_effects(instructions: list[DialInstruction]) -> dict[str, int]:
    """What a list of revealed dial instructions (each as _dial_instruction gives it back) adds up to, by what each counts."""
    totals = dict.fromkeys(DIAL_EFFECTS.values(), 0)
    for instruction in instructions:
        totals[DIAL_EFFECTS[instruction["kind"]]] += instruction.get("count", 1)
    return totals


OLD_WORLD_CARD_EFFECTS = ("remove_event_tokens", "remove_twin_tailed_comet_cards_from_track", "discard_instead_of_track")

REMOVE_INSTRUCTIONS = ("remove_old_world_tokens",)

# the refusal of a board holding more Old World tokens of a kind than the game has (citow/old-world-token-supply)
TOO_MANY_TOKENS = {"noble": "too-many-noble-tokens", "skaven": "too-many-skaven-tokens", "warpstone": "too-many-warpstone-tokens"}


SKULL_THRONE = "skull_throne"  # the card a Chaos card's name is matched against (_card_key)


def _tokens(spec: RegionSpec, kind: str) -> int:
    """A region's `<kind>_tokens` in `corruption_phase` (0 when not given), for kind noble, skaven or warpstone."""
    given = {"noble": spec.get("noble_tokens", 0), "skaven": spec.get("skaven_tokens", 0), "warpstone": spec.get("warpstone_tokens", 0)}
    return given[kind]


def _card_key(name: str) -> str:
    """A card's name as a key: lower case, words joined by _, a leading 'the' dropped ("The Skull Throne" -> skull_throne)."""
    key = "_".join("".join(c if c.isalnum() else " " for c in name.lower()).split())
    return key.removeprefix("the_")


def _take_comet_cards_off(track: list[str | None], comet: dict[str, Any]) -> list[str]:
    """Take the cards with the twin-tailed comet symbol off the track, their spaces left empty; returns them in space
    order. `comet` {card: has the symbol} must name every card on the track."""
    removed = []
    for index, card in enumerate(track):
        if card is None:
            continue
        if card not in comet:
            raise REFUSALS("comet-not-given", card=card)
        if comet[card]:
            removed.append(card)
            track[index] = None
    return removed


def _push_onto_track(track: list[str | None], card: str) -> tuple[int, str | None]:
    """Place `card` on the first space, each card pushed one space on until an empty space takes it; returns the
    cards moved to a space further on, and the card pushed off the last space (None if none)."""
    carry: str | None = card
    index = shifted = 0
    while carry is not None and index < len(track):
        carry, track[index] = track[index], carry
        index += 1
        if carry is not None and index < len(track):
            shifted += 1
    return shifted, carry


def _the_action(summon: Summon | None, play_card: PlayCard | None) -> tuple[str, str]:
    """The one action of a summoning turn: (figure or card, the region it goes to); both or neither is refused."""
    if summon is not None and play_card is None:
        return summon["figure"], summon["region"]
    if play_card is not None and summon is None:
        return play_card["card"], play_card["region"]
    raise REFUSALS("exactly-one-action")


class Rules(Game):
    def __init__(self, data: GameData):
        super().__init__(data)
        self.HIT_MIN = data.param("citow/battle-dice", "hit_min")  # from citow/battle-dice
        self.EXPLODE_ON = data.param("citow/battle-dice", "explode_on")
        self.DICE_SIDES = data.param("citow/battle-dice", "dice_sides")
        self.BATTLE_DICE_RULE = data.ref("citow/battle-dice")
        self.ASSIGNING_HITS = data.ref("citow/assigning-hits")  # hits on Peasant tokens, none on one's own followers
        self.HITS_ONLY_ON_SIX = data.ref("citow/hits-only-on-six")
        self.RUIN_THRESHOLD = data.param("citow/placing-corruption-tokens", "ruin_threshold")  # from citow/placing-corruption-tokens
        self.RUINATION_CARDS = data.param("citow/ruining-a-region", "ruination_cards")  # from citow/ruining-a-region
        self.CARD_1_PARTICIPANTS_VP = data.param("citow/ruination-card-1-table", "participants_vp")  # from citow/ruination-card-1-table
        self.CARD_1_TABLE = _card_1_table(data)  # region -> (1st, 2nd), from citow/ruination-card-1-table
        self.CARD_TABLE_CLARIFICATION = data.ref("citow/clarify-ruination-card-tables")
        self.REGION_ORDER = tuple(_region_order(data))  # from citow/standard-region-order
        self.KISLEV_RESISTANCE = data.param(
            "citow/example-dominance-kislev", "kislev_resistance"
        )  # the only region whose value the text gives, from citow/example-dominance-kislev
        self.SKAVEN_RESISTANCE = data.param("citow/skaven-tokens", "resistance_modifier")  # from citow/skaven-tokens
        self.NOBLE_CONQUER = data.param("citow/noble-tokens", "conquer_value_modifier")  # from citow/noble-tokens
        self.SKAVEN_CONQUER = data.param("citow/skaven-tokens", "conquer_value_modifier")  # from citow/skaven-tokens
        self.NOBLE_RESISTANCE = data.param("citow/noble-tokens", "resistance_modifier")  # from citow/noble-tokens
        self.VP_TO_WIN = data.param("citow/victory-fifty-vp", "vp_to_win")  # from citow/victory-fifty-vp
        self.RUINED_REGIONS_TO_END = data.param("citow/check-for-game-end", "ruined_regions_to_end")  # from citow/check-for-game-end
        self.SETUP = _setup(data)  # from citow/setup-steps
        self.PEASANT_TOKEN_HITS = data.param("citow/assigning-hits", "peasant_token_hits")  # from citow/assigning-hits
        self.TOKEN_SUPPLY = {  # Old World tokens on the board, from citow/component-list, limited by citow/old-world-token-supply
            kind: data.param("citow/component-list", f"{kind}_tokens") for kind in ("noble", "skaven", "warpstone")
        }
        self.TOKEN_SUPPLY_LIMITED = not data.param("citow/old-world-token-supply", "supply_unlimited")
        self.TOKEN_SUPPLY_RULE = data.ref("citow/old-world-token-supply")
        self.SUMMONING_FOLLOWERS = data.ref("citow/summoning-followers")  # a Power summons only figures it has
        self.COMPONENT_LIST = data.ref("citow/component-list")  # what the box holds
        self.FIGURES_OWNED = {power: data.param("citow/component-list", f"{power}_figures") for power in POWERS}
        self.REGION_ORDER_NOTE = data.ref("citow/battle-phase-overview")
        self.KNOWN_CARDS = {  # battle effects of the Chaos cards whose numbers the sources state
            "blood_frenzy": {
                "timing": data.param("citow/identical-cards-stack", "blood_frenzy_timing"),
                "dice": data.param("citow/identical-cards-stack", "blood_frenzy_dice"),
            },  # from citow/identical-cards-stack
            "rain_of_pus": {
                "defense_bonus": data.param("citow/example-battle-complex", "rain_of_pus_defense_bonus")
            },  # from citow/example-battle-complex
        }
        self.KHORNE_MIN_KILLS = data.param(
            "citow/example-khorne-four-kills", "khorne_min_enemy_figures_killed"
        )  # from citow/example-khorne-four-kills, resolved by citow/clarify-khorne-threat-condition
        self.SLAANESH_MIN_TOKENS = data.param(
            "citow/example-slaanesh-advancement", "slaanesh_min_corruption_tokens"
        )  # from citow/example-slaanesh-advancement
        self.SLAANESH_TOKENS = tuple(t.strip() for t in data.param("citow/example-slaanesh-advancement", "slaanesh_tokens").split(","))
        self.MAX_COUNTERS_PER_EVENT = data.param("citow/one-counter-per-event", "max_counters_per_event")  # from citow/one-counter-per-event
        self.TOKENS_PER_CULTIST = data.param(
            "citow/placing-corruption-tokens", "corruption_tokens_per_cultist"
        )  # from citow/placing-corruption-tokens
        self.KHORNE_CLARIFICATION = data.ref("citow/clarify-khorne-threat-condition")
        self.PARTICIPANTS_CLARIFICATION = data.ref("citow/clarify-ruination-participants-this-round")
        self.OLD_WORLD_TRACK_SPACES = data.param("citow/old-world-track", "track_spaces")  # from citow/old-world-track
        self.CARD_SPACES_PER_REGION = data.param("citow/chaos-card-spaces", "card_spaces_per_region")  # from citow/chaos-card-spaces
        self.CARD_SPACES_TOTAL = data.param("citow/chaos-card-spaces", "card_spaces_total")
        self.HERO_FIGURES_PER_TOKEN = data.param("citow/resolve-hero-tokens", "figures_removed_per_hero_token")  # from citow/resolve-hero-tokens
        self.PARTIAL_WHEN_IMPOSSIBLE = data.param(
            "citow/dial-instructions-mandatory", "partial_when_impossible"
        )  # from citow/dial-instructions-mandatory
        self.FORBIDDING_BEATS_PERMITTING = data.param(
            "citow/forbidding-effects-prevail", "forbidding_beats_permitting"
        )  # from citow/forbidding-effects-prevail
        ruined_rules = data.pick("citow/ruined-region-rules", ("dominance_resolved", "corruption_placed", "chaos_cards_playable"))
        self.RUINED_CARDS_PLAYABLE = ruined_rules["chaos_cards_playable"]
        self.RUINED_RULE = data.ref("citow/ruined-region-rules")
        self.SKULL_THRONE_EXAMPLE = data.ref("citow/example-non-cumulative-cards")
        self.RUINED_DOMINANCE_RESOLVED = ruined_rules["dominance_resolved"]  # from citow/ruined-region-rules
        self.RUINED_CORRUPTION_PLACED = ruined_rules["corruption_placed"]

    def _dice_hits(self, results: list[int]) -> tuple[int, int]:
        return sum(1 for r in results if r >= self.HIT_MIN), sum(1 for r in results if r == self.EXPLODE_ON)

    @check("battle_hits")
    def battle_hits(self, dice: int, results: list[int]) -> dict[str, Any]:
        """The battle_hits check: see describe()."""
        if any(not 1 <= r <= self.DICE_SIDES for r in results):
            raise REFUSALS("results-out-of-range", rule=self.BATTLE_DICE_RULE, sides=self.DICE_SIDES)
        needed = dice
        for index, result in enumerate(results):
            if index >= needed:
                raise REFUSALS(
                    "too-many-results", rule=self.BATTLE_DICE_RULE, dice=dice, explosions=needed - dice, rolls=needed, results=len(results)
                )
            if result == self.EXPLODE_ON:
                needed += 1
        if len(results) < needed:
            raise REFUSALS("too-few-results", rule=self.BATTLE_DICE_RULE, dice=dice, explosions=needed - dice, rolls=needed, results=len(results))
        hits, explosions = self._dice_hits(results)
        return {"hits": hits, "explosions": explosions, "rolls": len(results)}

    def _hits_of_one_die(self) -> tuple[Fraction, Fraction, Fraction]:
        """(P(no hit), P(hit and stop), P(hit and explode)) for one roll."""
        faces = Fraction(1, self.DICE_SIDES)
        miss = faces * (self.HIT_MIN - 1)
        explode = faces * (self.DICE_SIDES - self.EXPLODE_ON + 1)
        return miss, 1 - miss - explode, explode

    @check("hit_probability")
    def hit_probability(self, dice: int, hits: int) -> dict[str, Any]:
        """One die's hits H: P(H=0) = P(miss); P(H=h) = P(explode)^(h-1) * (P(hit) + P(explode) * P(miss)).
        The chance of fewer than k hits is a finite sum, so the answer is exact. P(H=h) has the denominator
        sides^(h+1), so P(n dice give t hits) * sides^(t+n) is an integer: the sums are taken over those integers.
        """
        sides = self.DICE_SIDES
        miss, stop, explode = self._hits_of_one_die()
        one_die = [miss] + [explode ** (h - 1) * (stop + explode * miss) for h in range(1, max(hits, 1))]
        scaled = [p * sides ** (h + 1) for h, p in enumerate(one_die)]
        if any(value.denominator != 1 for value in scaled):
            raise DataFileError("the battle-dice params do not give whole counts of die faces")
        counts = [int(value) for value in scaled]
        below = [1] + [0] * (hits - 1) if hits > 0 else []  # P(total = t) * sides^t, for t < hits, 0 dice
        for _ in range(dice):
            below = [sum(below[t - h] * counts[h] for h in range(t + 1)) for t in range(hits)]
        missed = sum(Fraction(count, sides ** (t + dice)) for t, count in enumerate(below))
        probability = 1 - missed if hits > 0 else Fraction(1)
        return {"probability": float(probability), "exact": f"{probability.numerator}/{probability.denominator}"}

    @check("dominance")
    def dominance(
        self,
        figures: dict[str, Any],
        chaos_cards: dict[str, list[ChaosCard]] | None = None,
        region: str | None = None,
        resistance: int | None = None,
        conquer_value: int | None = None,
        noble_tokens: int = 0,
        skaven_tokens: int = 0,
        attack_values: dict[str, int] | None = None,
    ) -> dict[str, Any]:
        """The dominance check: see describe(). A Power that played The Skull Throne in the region counts its figures by
        their attack values (`attack_values` {figure class: attack}, from the Power sheet, which the sources do not
        print); copies do not add up (citow/example-non-cumulative-cards), each card's cost still counts."""
        chaos_cards = chaos_cards or {}
        if region is not None:
            region = self._region(region)
        by_attack = [p for p in POWERS if any(_card_key(c.get("name", "")) == SKULL_THRONE for c in chaos_cards.get(p, []))]
        values = {}
        for power in POWERS:
            count = self._figure_value(figures.get(power, {}), power in by_attack, attack_values)
            cost = sum(card["cost"] for card in chaos_cards.get(power, []))
            if count or power in figures or power in chaos_cards:
                values[power] = count + cost
        result = self._dominant(values, region, resistance, conquer_value, noble_tokens, skaven_tokens)
        return {**result, "counted_by_attack_value": by_attack}

    def _figure_value(self, figures: dict[str, int], by_attack: bool, attack_values: dict[str, int] | None) -> int:
        """A Power's figures in the dominance value: their number, or the sum of their attack values under The Skull
        Throne (the attack values are an input: the sources print no figure stats)."""
        if not by_attack:
            return sum(figures.values())
        missing = sorted(f for f, n in figures.items() if n and f not in (attack_values or {}))
        if missing:
            raise REFUSALS("skull-throne-attack-values", rule=self.SKULL_THRONE_EXAMPLE, figures=missing)
        return sum(n * (attack_values or {})[f] for f, n in figures.items() if n)

    def _dominant(
        self,
        values: dict[str, int],
        region: str | None,
        resistance: int | None,
        conquer_value: int | None,
        noble_tokens: int,
        skaven_tokens: int,
    ) -> dict[str, Any]:
        """The dominant Power, if its value is the unique highest above the region's resistance, and its VP."""
        best = max(values.values(), default=0)
        leaders = [p for p, v in values.items() if v == best]
        token_modifiers = {
            "skaven": {
                "resistance": self.SKAVEN_RESISTANCE * skaven_tokens,
                "conquer_value": self.SKAVEN_CONQUER * skaven_tokens,
            },
            "noble": {"resistance": self.NOBLE_RESISTANCE * noble_tokens, "conquer_value": self.NOBLE_CONQUER * noble_tokens},
        }
        if region == "kislev":
            resistance = self.KISLEV_RESISTANCE if resistance is None else resistance
            conquer_value = self.KISLEV_RESISTANCE if conquer_value is None else conquer_value
        if resistance is None or conquer_value is None:
            if len(leaders) == 1 and best > 0:
                raise REFUSALS("resistance-only-for-kislev")
            return {
                "dominance_values": values,
                "dominant": None,
                "dominance_exceeds_resistance": False,
                "vp_gained": {p: 0 for p in values},
                "token_modifiers": token_modifiers,
            }
        effective_resistance = resistance + sum(m["resistance"] for m in token_modifiers.values())
        reward = conquer_value + sum(m["conquer_value"] for m in token_modifiers.values())
        dominant = leaders[0] if len(leaders) == 1 and best > effective_resistance else None
        return {
            "dominance_values": values,
            "dominant": dominant,
            "dominance_exceeds_resistance": dominant is not None,
            "resistance": effective_resistance,
            "conquer_value": reward,
            "vp_gained": {p: (reward if p == dominant else 0) for p in values},
            "token_modifiers": token_modifiers,
        }

    @check("corruption")
    def corruption(
        self,
        corruption_before: dict[str, Any],
        cultists: dict[str, Any],
        region: str | None = None,
        warpstone_tokens: int = 0,
        regions_already_ruined: int = 0,
        participants_vp: int | None = None,
        placed_earlier_this_round: list[Any] | None = None,
    ) -> dict[str, Any]:
        """The participants of a ruination are the Powers that placed corruption in the region this round: in this step
        (their cultists) or earlier (`placed_earlier_this_round`, citow/clarify-ruination-participants-this-round).
        `end_phase_scorers` are the Powers that score the card in the End Phase: all tied for the most, else the most
        and all tied for second (citow/ruination-scoring-ties).
        """
        after = {p: corruption_before.get(p, 0) + cultists.get(p, 0) for p in POWERS if corruption_before.get(p, 0) + cultists.get(p, 0)}
        total = sum(after.values()) + warpstone_tokens
        ruined = total >= self.RUIN_THRESHOLD and regions_already_ruined < self.RUINATION_CARDS
        result = {"corruption_after": after, "total_corruption": total, "ruined": ruined}
        if not ruined:
            return result
        card = regions_already_ruined + 1
        if participants_vp is None and card == 1:
            participants_vp = self.CARD_1_PARTICIPANTS_VP
        earlier = set(placed_earlier_this_round or [])
        placed = [p for p in POWERS if cultists.get(p, 0) or p in earlier]
        # cards 2-5: the sources do not give their award, so without participants_vp it is reported as unknown (null)
        vp = (
            None
            if participants_vp is None
            else {p: participants_vp if p in placed else 0 for p in sorted(set(after) | set(placed), key=POWERS.index)}
        )
        return {
            **result,
            "ruination_card": card,
            "participants": placed,
            "participants_vp": participants_vp,
            "vp_gained": vp,
            "end_phase_scorers": _scorers(after),
            "clarifications": [self.PARTICIPANTS_CLARIFICATION],
        }

    @check("ruination_order")
    def ruination_order(self, regions_reaching_threshold: list[str], ruination_cards_left: int) -> dict[str, Any]:
        """The ruination_order check: see describe()."""
        unknown = [r for r in regions_reaching_threshold if r not in self.REGION_ORDER]
        if unknown:
            raise REFUSALS("unknown-regions", unknown=unknown, regions=list(self.REGION_ORDER))
        ordered = sorted(set(regions_reaching_threshold), key=self.REGION_ORDER.index)
        return {
            "ruined": ordered[:ruination_cards_left],
            "not_ruined": ordered[ruination_cards_left:],
            "ruination_vp_for_not_ruined": 0,
        }

    @check("ruination_scoring")
    def ruination_scoring(
        self, corruption: dict[str, Any], ruination_card: int = 1, region: str | None = None, card_values: CardValues | None = None
    ) -> dict[str, Any]:
        """The ruination_scoring check: see describe()."""
        notes = []
        if card_values is None:
            if ruination_card != 1 or region not in self.CARD_1_TABLE:
                raise REFUSALS("card-values-needed")
            first, second = self.CARD_1_TABLE[region]
            notes.append(self.CARD_TABLE_CLARIFICATION)
        else:
            first, second = card_values["first"], card_values["second"]
        present = {p: n for p, n in corruption.items() if n > 0}
        vp = {p: 0 for p in corruption}
        if present:
            top = max(present.values())
            leaders = [p for p, n in present.items() if n == top]
            if len(leaders) > 1:
                for p in leaders:
                    vp[p] = (first + second) // len(leaders)
            else:
                vp[leaders[0]] = first
                rest = {p: n for p, n in present.items() if p != leaders[0]}
                if rest:
                    runner_up = max(rest.values())
                    seconds = [p for p, n in rest.items() if n == runner_up]
                    for p in seconds:
                        vp[p] = second // len(seconds)
        return {"vp_gained": vp, "card_turned_over": True, "corruption_tokens_left": 0, "clarifications": notes}

    @check("advance_dials")
    def advance_dials(
        self,
        advancement_counters: dict[str, Any],
        round: int | None = None,
        dial_instructions_revealed: dict[str, list[DialInstruction]] | None = None,
    ) -> dict[str, Any]:
        """`dial_instructions_revealed` {power: the instructions its dial shows at each tick, in order}: one per tick
        turned, each {kind, count} (citow/dial-instruction-list names the kinds; the dials themselves, and so the
        numbers, are not in the sources).
        """
        ticks = {p: (1 if n >= 1 else 0) for p, n in advancement_counters.items()}
        most = max(advancement_counters.values(), default=0)
        leaders = [p for p, n in advancement_counters.items() if n == most]
        extra = leaders[0] if most >= 1 and len(leaders) == 1 else None
        if extra:
            ticks[extra] += 1
        result: dict[str, Any] = {"ticks": ticks, "extra_tick": extra, "counters_after": {p: 0 for p in advancement_counters}}
        if dial_instructions_revealed is not None:
            for power, instructions in dial_instructions_revealed.items():
                if len(instructions) != ticks.get(power, 0):
                    raise REFUSALS("one-instruction-per-tick", power=power, ticks=ticks.get(power, 0), given=len(instructions))
            effects = {p: _dial_effects([_dial_instruction(p, i) for i in dial_instructions_revealed.get(p, [])]) for p in advancement_counters}
            result["vp_gained"] = {p: e.pop("vp_gained") for p, e in effects.items()}
            for key in DIAL_EFFECTS.values():
                if key != "vp_gained":
                    result[key] = {p: e[key] for p, e in effects.items() if e[key]}
        return result

    @check("game_end")
    def game_end(
        self,
        victory_points: dict[str, Any],
        threat: dict[str, Any] | None = None,
        dials_at_victory: list[Any] | None = None,
        ruined_regions: int = 0,
        old_world_deck_empty: bool = False,
    ) -> dict[str, Any]:
        """The game_end check: see describe(). A tie-break reads only the tied Powers' victory points or threat, and
        refuses when one of them is not given (never taken as 0).
        """
        threat = threat or {}

        def known(values: dict[str, Any], candidates: list[str], refusal: str) -> None:
            missing = [p for p in candidates if p not in values]
            if missing:
                raise REFUSALS(refusal, powers=candidates, missing=missing)

        def best(candidates: list[str], values: dict[str, Any], refusal: str) -> list[str]:
            if len(candidates) > 1:
                known(values, candidates, refusal)
                top = max(values[p] for p in candidates)
                candidates = [p for p in candidates if values[p] == top]
            return candidates

        if dials_at_victory:  # greatest threat: the most VP, then shared (citow/clarify-threat-victory-tie)
            return {
                "game_ends": True,
                "condition": "greatest_threat",
                "winners": best(list(dials_at_victory), victory_points, "victory-points-break-the-tie"),
            }
        over = [p for p, n in victory_points.items() if n >= self.VP_TO_WIN]
        if over:
            leaders = best(over, victory_points, "victory-points-break-the-tie")
            return {"game_ends": True, "condition": "fifty_victory_points", "winners": best(leaders, threat, "threat-breaks-the-tie")}
        if ruined_regions >= self.RUINED_REGIONS_TO_END:
            leaders = best(list(victory_points), victory_points, "victory-points-break-the-tie")
            return {"game_ends": True, "condition": "five_ruined_regions", "winners": best(leaders, threat, "threat-breaks-the-tie")}
        if old_world_deck_empty:
            return {"game_ends": True, "condition": "old_world_deck_exhausted", "winners": []}
        return {"game_ends": False, "condition": None, "winners": []}

    @check("setup")
    def setup(self, players: int) -> dict[str, Any]:
        """The setup check: see describe()."""
        if players not in self.SETUP["old_world_cards"]:
            raise REFUSALS("setup-players", players=sorted(self.SETUP["old_world_cards"]))
        return {
            "old_world_cards": self.SETUP["old_world_cards"][players],
            "starting_hand": self.SETUP["starting_hand"],
            "start_tokens": self.SETUP["start_tokens"],
            "starting_vp": self.SETUP["starting_vp"],
        }

    def _roll(self, roller: str, dice: int, results: list[int]) -> dict[str, Any]:
        try:
            counted = self.battle_hits(dice, results)
        except RulesError as err:
            raise REFUSALS("roll-refused", roller=roller, problem=err) from None
        return {**counted, "sixes": sum(1 for r in results if r == self.EXPLODE_ON)}

    @check("battle")
    def battle(
        self,
        figures: dict[str, Any],
        stats: dict[str, FigureStats],
        dice_rolled: dict[str, Any] | None = None,
        hit_assignment: dict[str, Any] | None = None,
        cards: list[BattleCard] | None = None,
        peasant_tokens: int = 0,
        region: str | None = None,
        what_if: list[WhatIf] | None = None,
    ) -> dict[str, Any]:
        """Inputs: `figures` {power: {figure: count}}; `stats` {figure: {attack, defense | defense_at_least, only_hit_by_sixes}}
        (the sources print no figure stats, so they are inputs); `cards` [{power, card, timing, dice, defense_bonus}]
        (Blood Frenzy and Rain of Pus default to the numbers the sources state); `dice_rolled` {roller: results in the
        order rolled}, a roller being a Power or, for start-of-battle dice, "<power>_<card>"; `hit_assignment`
        {roller: {figure | power/figure | "peasant_token": hits}}. Without `dice_rolled` only the dice are counted.
        Start-of-battle hits that kill remove the figure at once; hits that do not are held on the figure and count
        with the same Power's hits of the main battle (the early-hits exception), or are lost if those never complete them.
        Unassigned start-of-battle hits join the same Power's main pool. `what_if` [{name, dice_rolled, hit_assignment,
        report}] re-runs the battle with other rolls and returns the keys named in `report`.
        """
        cards = cards or []
        state = _Battle(self, figures, stats, cards, peasant_tokens)
        if dice_rolled is None:
            return state.dice_only()
        hit_assignment = hit_assignment or {}
        early = state.early_rollers()
        rollers = {n for n, _, _ in early} | set(state.powers)
        unknown = sorted((set(dice_rolled) | set(hit_assignment)) - rollers)
        if unknown:
            raise REFUSALS("unknown-rollers", rollers=unknown)
        battle_takes_place = state.takes_place()
        out: dict[str, dict[str, Any]] = {"dice": {}, "explosions": {}, "hits": {}, "wasted_hits": {}, "cannot_target": {}}
        carried_hits, carried_sixes = self._start_of_battle(state, early, dice_rolled, hit_assignment, out)
        self._main_battle(state, dice_rolled, hit_assignment, out, carried_hits, carried_sixes)
        result = {**out, **state.losses(figures), "battle_takes_place": battle_takes_place}
        if region is not None:
            result["next_region"] = self._next_region(region)
        if what_if:
            result["what_if"] = what_ifs = {}
            for case in what_if:
                other = self.battle(
                    figures,
                    stats,
                    case.get("dice_rolled", dice_rolled),
                    case.get("hit_assignment", hit_assignment),
                    cards,
                    peasant_tokens,
                    region,
                )
                keys = case.get("report") or list(other)
                what_ifs[case["name"]] = {k: other.get(k) for k in keys}
        return result

    def _rolled(self, out: dict[str, dict[str, Any]], roller: str, dice: int, results: list[int]) -> dict[str, Any]:
        """A roller's roll (_roll), with its dice, explosions and hits written into the battle's answer `out`."""
        roll = self._roll(roller, dice, results)
        out["dice"][roller], out["explosions"][roller], out["hits"][roller] = dice, roll["explosions"], roll["hits"]
        return roll

    def _start_of_battle(
        self,
        state: _Battle,
        early: list[tuple[str, str, int]],
        dice_rolled: dict[str, Any],
        hit_assignment: dict[str, Any],
        out: dict[str, dict[str, Any]],
    ) -> tuple[dict[str, int], dict[str, int]]:
        """The start-of-battle rolls (cards such as Blood Frenzy), each assigned at once; returns each Power's hits
        left unassigned and how many of them came from sixes, which join its main pool."""
        carried_hits: dict[str, int] = {}
        carried_sixes: dict[str, int] = {}
        for name, power, dice in early:
            roll = self._rolled(out, name, dice, dice_rolled.get(name, []))
            out["cannot_target"][name] = []
            left = state.assign(name, power, roll["hits"], roll["sixes"], hit_assignment.get(name, {}), early=True)
            carried_hits[power] = carried_hits.get(power, 0) + left
            carried_sixes[power] = carried_sixes.get(power, 0) + min(left, roll["sixes"])
            out["wasted_hits"][name] = 0
        return carried_hits, carried_sixes

    def _main_battle(
        self,
        state: _Battle,
        dice_rolled: dict[str, Any],
        hit_assignment: dict[str, Any],
        out: dict[str, dict[str, Any]],
        carried_hits: dict[str, int],
        carried_sixes: dict[str, int],
    ) -> None:
        """The main battle, Power by Power: its roll and its unassigned start-of-battle hits make one pool, assigned
        as far as the rules require (citow/assigning-hits); its held start-of-battle hits still uncompleted are lost."""
        for power in state.powers:
            dice = state.dice_of(power)
            roll = self._rolled(out, power, dice, dice_rolled.get(power, []))
            pool, sixes = roll["hits"] + carried_hits.get(power, 0), roll["sixes"] + carried_sixes.get(power, 0)
            out["cannot_target"][power] = state.out_of_reach(power, pool)
            left = state.assign(power, power, pool, sixes, hit_assignment.get(power, {}), early=False)
            state.must_assign(power, power, left, sixes)
            out["wasted_hits"][power] = left
            state.lose_held_hits(power, out["wasted_hits"])

    def _next_region(self, region: str) -> str | None:
        """The region after `region` in the standard region order (citow/battle-phase-overview); None after the last."""
        index = self.REGION_ORDER.index(self._region(region))
        return self.REGION_ORDER[index + 1] if index + 1 < len(self.REGION_ORDER) else None

    @check("dial_advancement_counters")
    def dial_advancement_counters(self, power: str, events: list[DialEvent]) -> dict[str, Any]:
        """`events` lists what happened, each with `region` and `phase`; events of the same region and phase are one
        occasion. Khorne: `enemy_figures_killed` (Peasant tokens are not figures). Slaanesh: `corruption_placed` (or
        `cultists`, one token each) and the `tokens` in the region. Nurgle and Tzeentch: the sources do not quote their
        conditions, so each event says `condition_met`.
        """
        if power not in POWERS:
            raise REFUSALS("unknown-power", power=power)
        occasions: dict[tuple[Any, ...], dict[str, Any]] = {}
        for event in events:
            key = (event.get("region"), event.get("phase"))
            merged = occasions.setdefault(key, {"kills": 0, "placed": 0, "tokens": set(), "met": None})
            merged["kills"] += event.get("enemy_figures_killed", 0)
            merged["placed"] += event.get("corruption_placed", event.get("cultists", 0) * self.TOKENS_PER_CULTIST)
            merged["tokens"] |= set(event.get("tokens", []))
            if "condition_met" in event:
                merged["met"] = bool(merged["met"]) or event["condition_met"]
        by_region: dict[str, int] = {}
        placed: dict[str, int] = {}
        total, notes = 0, []
        for (region, _phase), o in occasions.items():
            if o["met"] is not None:
                met = o["met"]
            elif power == "khorne":
                met = o["kills"] >= self.KHORNE_MIN_KILLS
                notes = [self.KHORNE_CLARIFICATION]
            elif power == "slaanesh":
                met = o["placed"] >= self.SLAANESH_MIN_TOKENS and bool(o["tokens"] & set(self.SLAANESH_TOKENS))
            else:
                raise REFUSALS("condition-not-quoted", power=power)
            gained = self.MAX_COUNTERS_PER_EVENT if met else 0
            name = region if region is not None else "region"
            by_region[name] = by_region.get(name, 0) + gained
            placed[name] = placed.get(name, 0) + o["placed"]
            total += gained
        result = {"counters_by_region": by_region, "total_counters": total, "clarifications": notes}
        if power == "slaanesh":
            result["corruption_placed"] = placed
        return result

    @check("ruination_card_for")
    def ruination_card_for(self, regions_already_ruined: int) -> dict[str, Any]:
        """The card's number is the number of ruined regions counting this one (from citow/ruining-a-region,
        ruination_card_number = number_of_ruined_regions); with all cards used (params.ruination_cards), the region is
        not ruined.
        """
        if regions_already_ruined > self.RUINATION_CARDS:
            raise REFUSALS("already-ruined-beyond-cards", cards=self.RUINATION_CARDS, regions=regions_already_ruined)
        if regions_already_ruined == self.RUINATION_CARDS:
            return {"ruination_card": None, "region_can_be_ruined": False, "ruination_cards_left_after": 0}
        return {
            "ruination_card": regions_already_ruined + 1,
            "region_can_be_ruined": True,
            "ruination_cards_left_after": self.RUINATION_CARDS - regions_already_ruined - 1,
        }

    @check("old_world_track")
    def old_world_track(
        self,
        old_world_track: OldWorldTrack,
        drawn_card: str,
        twin_tailed_comet: dict[str, Any] | None = None,
        drawn_card_effects: list[Any] | None = None,
    ) -> dict[str, Any]:
        """`old_world_track` {space_1, space_2: card or null}; `twin_tailed_comet` {card: has the symbol} (the sources print
        no card list, so it is an input, needed for every card on the track when the drawn card removes comet cards);
        `drawn_card_effects` the track-related parts of the drawn card's text.
        """
        effects = list(drawn_card_effects or [])
        unknown = [e for e in effects if e not in OLD_WORLD_CARD_EFFECTS]
        if unknown:
            raise REFUSALS("unknown-track-effects", unknown=unknown, known=list(OLD_WORLD_CARD_EFFECTS))
        spaces, track = self._track_spaces(old_world_track)
        cards = [c for c in track if c is not None]
        if len(set(cards)) != len(cards) or drawn_card in cards:
            raise REFUSALS("card-twice-on-the-track")
        removed = []
        if "remove_twin_tailed_comet_cards_from_track" in effects:  # before the new card is placed
            removed += _take_comet_cards_off(track, twin_tailed_comet or {})
        before = dict(zip(spaces, track, strict=True))
        shifted = 0
        if "discard_instead_of_track" in effects:  # removed from the game; the track is not affected
            removed.append(drawn_card)
        else:
            shifted, pushed_off = _push_onto_track(track, drawn_card)
            if pushed_off is not None:  # pushed off the last space: its effect ends, back to the box
                removed.append(pushed_off)
        return {
            "removed_from_game": removed,
            "track_before_placing": before,
            "cards_shifted": shifted,
            "event_tokens_removed": "remove_event_tokens" in effects,
            "old_world_track_end": dict(zip(spaces, track, strict=True)),
        }

    def _track_spaces(self, old_world_track: OldWorldTrack) -> tuple[list[str], list[str | None]]:
        """The Old World track's spaces (citow/old-world-track) and the card on each, None where empty; a space the
        track does not have is refused."""
        spaces = [f"space_{i}" for i in range(1, self.OLD_WORLD_TRACK_SPACES + 1)]
        extra = [k for k in old_world_track if k not in spaces]
        if extra:
            raise REFUSALS("track-spaces", count=self.OLD_WORLD_TRACK_SPACES, spaces=spaces, given=extra)
        on_track = cast("Mapping[str, str | None]", old_world_track)  # read by space name: the data gives the spaces
        return spaces, [on_track.get(s) for s in spaces]

    def _region(self, name: str) -> str:
        key = name.replace("-", "_")
        if key not in self.REGION_ORDER:
            raise REFUSALS("unknown-region", region=name, regions=list(self.REGION_ORDER))
        return key

    def _adjacency(self, adjacent: list[Any], not_adjacent: list[Any]) -> dict[frozenset[str], bool]:
        known: dict[frozenset[str], bool] = {}
        for pairs, value in ((adjacent, True), (not_adjacent, False)):
            for a, b in pairs:
                pair = frozenset((self._region(a), self._region(b)))
                if len(pair) != 2:
                    raise REFUSALS("region-adjacent-to-itself", region=self._region(a))
                if known.get(pair, value) != value:
                    raise REFUSALS("adjacent-and-not-adjacent", first=self._region(a), second=self._region(b))
                known[pair] = value
        return known

    def _may_summon_to(self, region: str, occupied: set[Any], known: dict[frozenset[str], bool]) -> bool | None:
        """True, False, or None when the adjacency the answer depends on is not given."""
        if not occupied or region in occupied:
            return True
        links = [known.get(frozenset((region, r))) for r in occupied]
        if True in links:
            return True
        return False if all(link is False for link in links) else None

    def _summon_from(self, summon: Summon, region: str, occupied: set[Any], known: dict[frozenset[str], bool]) -> dict[str, Any]:
        """What taking the figure from a region on the board (`from`, `last_in_source`) adds to the answer."""
        if summon.get("from") is None:
            return {}
        source = self._region(summon["from"])
        if source not in occupied:
            raise REFUSALS("no-figure-in-source", region=source)
        if not summon.get("last_in_source"):
            return {}
        # the source region counts as occupied for this summoning (citow/summoning-last-figure-from-region)
        rest = occupied - {source}
        return {
            "source_region_counts_as_occupied": True,
            "own_followers_in_destination_or_adjacent_after_removal": region in rest or any(known.get(frozenset((region, r))) for r in rest),
        }

    @check("summoning")
    def summoning(
        self,
        power: str | None = None,
        costs: dict[str, Any] | None = None,
        summon: Summon | None = None,
        play_card: PlayCard | None = None,
        power_before: int | None = None,
        regions_with_own_figures: list[Any] | None = None,
        adjacent: list[Any] | None = None,
        not_adjacent: list[Any] | None = None,
        card_spaces_taken: dict[str, Any] | None = None,
        players: list[Any] | None = None,
        ruined_regions: list[str] | None = None,
    ) -> dict[str, Any]:
        """One action: `summon` {figure, class, region, from, last_in_source} or `play_card` {card, region}. The sources print
        no cost table and no map, so `costs` {figure or card: power points} and the adjacency (`adjacent` /
        `not_adjacent` pairs) are inputs; a region whose adjacency is not given is neither allowed nor excluded (null).
        `cannot_summon_to` and `cannot_afford` describe the position before the action. No Chaos card is played into a
        region in `ruined_regions` (citow/ruined-region-rules); figures still are.
        """
        if power is not None and power not in POWERS:
            raise REFUSALS("unknown-power", power=power)
        name, destination = _the_action(summon, play_card)
        costs = costs or {}
        cost = costs.get(name)  # None: not given (the sources print no cost table), so power is not judged
        region = self._region(destination)
        known = self._adjacency(adjacent or [], not_adjacent or [])
        result: dict[str, Any] = {"power_marker_moves_left": cost}
        affordable = self._affordable(result, costs, cost, power_before)
        occupied = self._occupied(result, regions_with_own_figures, known)
        taken, closed = self._card_spaces(result, card_spaces_taken, ruined_regions)
        if summon is not None:
            legal = self._summon_placement(result, summon, region, occupied, known)
            placed_key = "figure_placed_in"
        else:
            legal = self._card_fits(region, taken, closed)
            placed_key = "card_placed_in"
        result["placement_legal"] = legal
        if legal:
            result[placed_key] = region
        if power is not None:
            result["next_turn"] = self._next_turn(power, players)
        result["legal"] = bool(legal) and affordable is not False if legal is not None else None
        if power_before == 0:  # a marker on 0 at the start of the turn: no action, the turn is skipped
            result.update(turn_skipped=True, legal=False)
        return result

    def _occupied(self, result: dict[str, Any], regions_with_own_figures: list[Any] | None, known: dict[frozenset[str], bool]) -> set[str] | None:
        """The regions holding the Power's figures before the action (None: not given), and the regions no figure may
        be summoned to into `result` (citow/summoning-followers)."""
        if regions_with_own_figures is None:
            return None
        occupied = {self._region(r) for r in regions_with_own_figures}
        verdicts = {r: self._may_summon_to(r, occupied, known) for r in self.REGION_ORDER}
        result["cannot_summon_to"] = [r for r in self.REGION_ORDER if verdicts[r] is False]
        return occupied

    def _summon_placement(
        self, result: dict[str, Any], summon: Summon, region: str, occupied: set[str] | None, known: dict[frozenset[str], bool]
    ) -> bool | None:
        """Whether the figure may be placed in `region` (None: the adjacency it depends on is not given); what taking
        it from a region on the board adds into `result`."""
        if occupied is None:
            raise REFUSALS("own-regions-needed")
        result.update(self._summon_from(summon, region, occupied, known))
        return self._may_summon_to(region, occupied, known)

    def _affordable(self, result: dict[str, Any], costs: dict[str, Any], cost: int | None, power_before: int | None) -> bool | None:
        """Whether the Power can pay (None: its power or the cost not given); the power left and the costs it cannot
        pay into `result` (citow/paying-summoning-cost, citow/paying-card-cost)."""
        affordable = None
        if power_before is not None:
            result["cannot_afford"] = sorted(n for n, c in costs.items() if c > power_before)
            affordable = None if cost is None else cost <= power_before
            if affordable and cost is not None:
                result["power_after"] = power_before - cost
                result["next_own_turn_skipped"] = result["power_after"] == 0
        result["affordable"] = affordable
        return affordable

    def _card_spaces(
        self, result: dict[str, Any], card_spaces_taken: dict[str, Any] | None, ruined_regions: list[str] | None
    ) -> tuple[dict[str, int], set[str]]:
        """The Chaos card spaces taken per region and the regions closed to cards (ruined: citow/ruined-region-rules);
        the regions no card may be played in into `result` (citow/chaos-card-spaces)."""
        taken = {self._region(r): n for r, n in (card_spaces_taken or {}).items()}
        over = [r for r, n in taken.items() if n > self.CARD_SPACES_PER_REGION]
        if over:
            raise REFUSALS("card-spaces-of-a-region", spaces=self.CARD_SPACES_PER_REGION, regions=over)
        closed = set() if self.RUINED_CARDS_PLAYABLE else {self._region(r) for r in ruined_regions or []}
        if card_spaces_taken is not None or ruined_regions is not None:
            result["cannot_play_in"] = [r for r in self.REGION_ORDER if not self._card_fits(r, taken, closed)]
        if ruined_regions is not None:
            result["ruined_regions_rule"] = self.RUINED_RULE
        return taken, closed

    def _card_fits(self, region: str, taken: dict[str, int], closed: set[str]) -> bool:
        """A free card space in the region, fewer than all spaces taken, and the region not ruined."""
        return taken.get(region, 0) < self.CARD_SPACES_PER_REGION and sum(taken.values()) < self.CARD_SPACES_TOTAL and region not in closed

    def _next_turn(self, power: str, players: list[Any] | None) -> str:
        """The next Power in turn order among the players (citow/summoning-turn-order)."""
        order = [p for p in POWERS if p in (players or POWERS)]
        if power not in order:
            raise REFUSALS("not-among-the-players", power=power, players=order)
        return order[(order.index(power) + 1) % len(order)]

    @check("hero_tokens")
    def hero_tokens(self, hero_tokens: int, threat: dict[str, Any], figures: dict[str, Any], tie_break: list[Any] | None = None) -> dict[str, Any]:
        """`figures` {power: figures in the region}; `threat` {power: threat}. The sources do not say who is struck when
        the highest threats are equal, so such a tie needs `tie_break` (Powers, first struck first).
        """
        left = {p: n for p, n in figures.items()}
        missing = [p for p, n in left.items() if n and p not in threat]
        if missing:
            raise REFUSALS("threat-missing", powers=missing)
        removed = {p: 0 for p in figures}
        order, unused = [], 0
        for used in range(hero_tokens):
            candidates = [p for p, n in left.items() if n > 0]
            if not candidates:  # no figure left: the remaining tokens remove nothing
                unused = hero_tokens - used
                break
            top = max(threat[p] for p in candidates)
            leaders = [p for p in candidates if threat[p] == top]
            if len(leaders) > 1:
                ranked = [p for p in (tie_break or []) if p in leaders]
                if not ranked:
                    raise REFUSALS("hero-tokens-tie", powers=leaders, threat=top)
                leaders = ranked
            struck = leaders[0]
            n = min(self.HERO_FIGURES_PER_TOKEN, left[struck])
            left[struck] -= n
            removed[struck] += n
            order.append(struck)
        return {"figures_removed": removed, "figures_left": left, "struck_in_order": order, "hero_tokens_unused": unused}

    @check("dial_instruction_remove_tokens")
    def dial_instruction_remove_tokens(self, instruction: str, count: int, tokens_on_board: int) -> dict[str, Any]:
        """The dial_instruction_remove_tokens check: see describe()."""
        if instruction not in REMOVE_INSTRUCTIONS:
            raise REFUSALS("unknown-remove-instruction", instruction=instruction, known=list(REMOVE_INSTRUCTIONS))
        if count > tokens_on_board and not self.PARTIAL_WHEN_IMPOSSIBLE:
            raise REFUSALS("instruction-cannot-be-carried-out")
        removed = min(count, tokens_on_board)
        return {
            "tokens_removed": removed,
            "tokens_left_on_board": tokens_on_board - removed,
            "rest_of_instruction_ignored": count - removed,
            "fully_carried_out": removed == count,
        }

    @check("conflicting_effects")
    def conflicting_effects(self, region_cards: list[RegionCard], dominant: str | None = None) -> dict[str, Any]:
        """`region_cards` [{power, card, kind: forbidding | permitting, action, count, condition, effect}]: a forbidding
        effect forbids its `action` (e.g. place_corruption); a permitting effect does its `action` `count` times when
        its `condition` holds ("dominates": its Power is the `dominant` one). `effect` is the card text, for reading.
        """

        def holds(card: RegionCard) -> bool:
            condition = card.get("condition")
            if condition is None:
                return True
            if condition == "dominates":
                return bool(dominant == card["power"])
            raise REFUSALS("unknown-condition", condition=condition, card=card["card"])

        active = [c for c in region_cards if holds(c)]
        forbidden: dict[str, list[str]] = {}
        for card in active:
            if card["kind"] == "forbidding":
                forbidden.setdefault(card["action"], []).append(card["card"])
        applied: list[str] = []
        blocked: list[dict[str, Any]] = []
        prevailing: list[str] = []
        amounts: dict[tuple[str, str], int] = {}
        for card in region_cards:
            if card["kind"] != "permitting":
                continue
            key = (card["power"], card["action"])
            amounts.setdefault(key, 0)
            if card not in active:
                continue
            by = forbidden.get(card["action"], [])
            if by and self.FORBIDDING_BEATS_PERMITTING:
                blocked.append({"card": card["card"], "by": by})
                prevailing += [b for b in by if b not in prevailing]
            else:
                applied.append(card["card"])
                amounts[key] += card.get("count", 1)
        by_action: dict[str, Any] = {}
        for (power, action), n in amounts.items():
            by_action.setdefault(action, {})[power] = n
        result = {"applied": applied, "blocked": blocked, "prevailing_effects": prevailing, "by_action": by_action}
        if "place_corruption" in by_action:
            result["corruption_placed_by_card"] = by_action["place_corruption"]
        return result

    @check("corruption_phase")
    def corruption_phase(
        self,
        regions: list[RegionSpec],
        ruined_regions: list[Any] | None = None,
        ruination_cards_left: int | None = None,
        participants_vp: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A whole Corruption Phase (citow/corruption-phase-steps): first the Domination step over every region in the
        standard region order, then the Corruption step in that order, each region through the `dominance` and
        `corruption` checks. A region reaching the threshold is ruined while ruination cards remain; regions already
        ruined are skipped in both steps (citow/ruined-region-rules). `regions` may come in any order; a region not
        given holds nothing. `participants_vp` {card number: award} gives the awards of cards 2-5, which the sources
        do not print; without it a Power's phase total from such a card is unknown (listed in `vp_unknown_from`).
        """
        given = self._board(regions)
        ruined = self._ruined_before(ruined_regions, ruination_cards_left)
        supply_left = self._supply_left(given)
        report = {name: {"region": name, "ruined_before": name in ruined} for name in self.REGION_ORDER}
        vp = {p: 0 for p in POWERS}
        self._domination_step(given, ruined, report, vp)
        awards = {int(card): award for card, award in (participants_vp or {}).items()}
        step = self._corruption_step(given, ruined, awards, report, vp)
        return {
            "regions": [report[name] for name in self.REGION_ORDER],
            "ruined_this_phase": step["ruined"],
            "reached_threshold_not_ruined": step["not_ruined"],
            "skipped_ruined": [r for r in self.REGION_ORDER if r in ruined],
            "ruination_cards_left": self.RUINATION_CARDS - len(ruined) - len(step["ruined"]),
            "vp_gained": dict(vp),
            "vp_unknown_from": step["unknown"],
            "end_phase_scoring": step["ruined"],
            "old_world_tokens_left": supply_left,
        }

    def _board(self, regions: list[RegionSpec]) -> dict[str, RegionSpec]:
        """The regions of `corruption_phase` by name, each given once."""
        given: dict[str, RegionSpec] = {}
        for spec in regions:
            name = self._region(spec["region"])
            if name in given:
                raise REFUSALS("region-given-twice", region=name)
            given[name] = spec
        return given

    def _ruined_before(self, ruined_regions: list[Any] | None, cards_left_given: int | None) -> set[str]:
        """The regions ruined before the phase, no more than the ruination cards, and the cards left as given."""
        ruined = {self._region(r) for r in ruined_regions or []}
        if len(ruined) > self.RUINATION_CARDS:
            raise REFUSALS("ruined-beyond-cards", cards=self.RUINATION_CARDS, regions=len(ruined))
        cards_left = self.RUINATION_CARDS - len(ruined)
        if cards_left_given is not None and cards_left_given != cards_left:
            raise REFUSALS("ruination-cards-left", ruined=len(ruined), left=cards_left, cards=self.RUINATION_CARDS, given=cards_left_given)
        return ruined

    def _domination_step(self, given: dict[str, RegionSpec], ruined: set[str], report: dict[str, dict[str, Any]], vp: dict[str, Any]) -> None:
        """The Domination step, region by region in region order (ruined regions skipped): each region's `dominance`
        into `report`, its VP added to `vp`."""
        for name in self.REGION_ORDER:
            spec, entry = given.get(name, RegionSpec(region=name)), report[name]
            if name in ruined and not self.RUINED_DOMINANCE_RESOLVED:
                entry["dominance"] = None
                continue
            result = self.dominance(
                figures=spec.get("figures", {}),
                chaos_cards=spec.get("chaos_cards"),
                region=name,
                resistance=spec.get("resistance"),
                conquer_value=spec.get("conquer_value"),
                noble_tokens=spec.get("noble_tokens", 0),
                skaven_tokens=spec.get("skaven_tokens", 0),
                attack_values=spec.get("attack_values"),
            )
            entry["dominance"] = result
            for power, gained in result["vp_gained"].items():
                vp[power] += gained

    def _corruption_step(
        self, given: dict[str, RegionSpec], ruined: set[str], awards: dict[int, int], report: dict[str, dict[str, Any]], vp: dict[str, Any]
    ) -> dict[str, list[str]]:
        """The Corruption step, region by region in region order (ruined regions skipped): each region's `corruption`
        into `report`, ruination while cards last, its VP added to `vp`; the regions ruined, those at the threshold
        left unruined for lack of a card, and those whose award is unknown (cards 2-5 without `participants_vp`)."""
        step: dict[str, list[str]] = {"ruined": [], "not_ruined": [], "unknown": []}
        for name in self.REGION_ORDER:
            spec, entry = given.get(name, RegionSpec(region=name)), report[name]
            if name in ruined and not self.RUINED_CORRUPTION_PLACED:
                entry["corruption"] = None
                continue
            figures = spec.get("figures", {})
            before = len(ruined) + len(step["ruined"])
            result = self.corruption(
                corruption_before=spec.get("corruption_before", {}),
                cultists=spec.get("cultists", {p: kinds.get("cultist", 0) for p, kinds in figures.items()}),
                region=name,
                warpstone_tokens=spec.get("warpstone_tokens", 0),
                regions_already_ruined=before,
                participants_vp=awards.get(before + 1),
                placed_earlier_this_round=spec.get("placed_earlier_this_round"),
            )
            entry["corruption"] = result
            if result["ruined"]:
                step["ruined"].append(name)
                if result["vp_gained"] is None:
                    step["unknown"].append(name)
                for power, gained in (result["vp_gained"] or {}).items():
                    vp[power] += gained
            elif result["total_corruption"] >= self.RUIN_THRESHOLD:
                step["not_ruined"].append(name)
        return step

    @staticmethod
    def _region_figures(spec: RegionSpec) -> dict[str, int]:
        """Each Power's figures in one region of `corruption_phase`: its `figures`, with `cultists` for the cultists
        where given (they stand for the `cultist` class)."""
        figures, cultists = spec.get("figures", {}), spec.get("cultists", {})
        counted = {}
        for power in set(figures) | set(cultists):
            kinds = figures.get(power, {})
            counted[power] = sum(n for kind, n in kinds.items() if kind != "cultist") + cultists.get(power, kinds.get("cultist", 0))
        return counted

    def _supply_left(self, given: dict[str, RegionSpec]) -> dict[str, int]:
        """The Noble, Skaven and Warpstone tokens left in the supply once those on the board are counted; a position
        holding more of a kind than the box (citow/component-list), or more of a Power's figures than it owns, is
        refused: Old World tokens are strictly limited (citow/old-world-token-supply), and a Power summons only
        figures it has (citow/summoning-followers)."""
        on_board = {kind: sum(_tokens(spec, kind) for spec in given.values()) for kind in self.TOKEN_SUPPLY}
        if self.TOKEN_SUPPLY_LIMITED:
            for kind, count in on_board.items():
                if count > self.TOKEN_SUPPLY[kind]:
                    where = [
                        REFUSALS("count-in-region", region=name, count=_tokens(spec, kind)) for name, spec in given.items() if _tokens(spec, kind)
                    ]
                    raise REFUSALS(
                        TOO_MANY_TOKENS[kind],
                        rule=(self.TOKEN_SUPPLY_RULE, self.COMPONENT_LIST),
                        count=count,
                        where=where,
                        supply=self.TOKEN_SUPPLY[kind],
                    )
        for power in POWERS:
            counts = {name: self._region_figures(spec).get(power, 0) for name, spec in given.items()}
            if sum(counts.values()) > self.FIGURES_OWNED[power]:
                where = [REFUSALS("count-in-region", region=name, count=n) for name, n in counts.items() if n]
                raise REFUSALS(
                    "too-many-figures",
                    rule=(self.SUMMONING_FOLLOWERS, self.COMPONENT_LIST),
                    count=sum(counts.values()),
                    power=power,
                    where=where,
                    owned=self.FIGURES_OWNED[power],
                )
        return {kind: self.TOKEN_SUPPLY[kind] - count for kind, count in on_board.items()}

    def _dial_turn(self, power: str, spec: PowerDial, ticks: int) -> dict[str, Any]:
        """One Power's dial in the dial step: the ticks it turns (it stops at Victory, its highest position), the
        windows it reveals, and what they add up to; None for what its given windows do not say."""
        position, victory_at = spec["position"], spec.get("victory_at")
        if victory_at is not None and position >= victory_at:
            raise REFUSALS("dial-past-victory", power=power, position=position, victory_at=victory_at)
        turned = ticks if victory_at is None else min(ticks, victory_at - position)
        after = position + turned
        windows = spec.get("windows", {})
        revealed: list[dict[str, Any]] = []
        for at in range(position + 1, after + 1):
            window = windows.get(str(at), {})
            if at == victory_at:
                instruction: dict[str, Any] | None = {"kind": "victory"}  # the Victory! window, by its code
            else:
                given = window.get("instruction")
                instruction = None if given is None else dict(_dial_instruction(power, given))
            revealed.append({"position": at, "instruction": instruction, "threat": window.get("threat")})
        unknown = [r["position"] for r in revealed if r["instruction"] is None]
        effects = None if unknown else _dial_effects([r["instruction"] for r in revealed if r["position"] != victory_at])
        vp_before = spec.get("victory_points")
        return {
            "ticks_turned": turned,
            "position_after": after,
            "revealed": revealed,
            "effects": effects,
            "unknown_windows": unknown,
            "at_victory": None if victory_at is None and turned else after == victory_at,
            "threat_after": windows.get(str(after), {}).get("threat"),
            "victory_points_after": None if effects is None or vp_before is None else vp_before + effects["vp_gained"],
        }

    @check("round_dials")
    def round_dials(self, powers: dict[str, PowerDial], ruined_regions: int = 0, old_world_deck_empty: bool = False) -> dict[str, Any]:
        """`powers` {power: {position, victory_at, events | counters, windows, victory_points}}: `position` the ticks the
        dial has turned from Start; `events` what the Power did this round, read by `dial_advancement_counters` (or
        `counters` already counted); `victory_points` before the dial step. The dials are printed on the board, not in
        the sources, so `victory_at` (the ticks from Start to the Victory window) and `windows` {position: {instruction,
        threat}} come from the players; where they are left out the answer says what it cannot tell (null) and what
        the game-end check needs (`game_end_needs`). A dial stops at Victory, its highest position: a tick beyond it is
        not turned.
        """
        counters, notes = self._round_counters(powers)
        step = self.advance_dials(counters)
        turns = {p: self._dial_turn(p, spec, step["ticks"][p]) for p, spec in powers.items()}
        needs = _game_end_needs(powers, turns)
        at_victory = [p for p in POWERS if p in turns and turns[p]["at_victory"]]
        game_end = None if needs else self._round_game_end(turns, at_victory, ruined_regions, old_world_deck_empty)
        return {
            "counters": counters,
            "ticks": step["ticks"],
            "extra_tick": step["extra_tick"],
            "ticks_turned": _each_turn(turns, "ticks_turned"),
            "position_after": _each_turn(turns, "position_after"),
            "revealed": _each_turn(turns, "revealed"),
            "vp_gained": {p: None if t["effects"] is None else t["effects"]["vp_gained"] for p, t in turns.items()},
            "instructions_to_carry_out": _instructions_to_carry_out(turns),
            "victory_points_after": _each_turn(turns, "victory_points_after"),
            "threat_after": _each_turn(turns, "threat_after"),
            "dials_at_victory": at_victory,
            "counters_after": step["counters_after"],
            "game_end": game_end,
            "game_end_needs": needs,
            "clarifications": notes,
        }

    def _round_counters(self, powers: dict[str, PowerDial]) -> tuple[dict[str, int], list[str]]:
        """Each Power's advancement counters this round, counted from its `events` (dial_advancement_counters) or
        given as `counters`; and the clarifications the counting cites, each once."""
        counters: dict[str, int] = {}
        notes: list[str] = []
        for power, spec in powers.items():
            if "events" in spec and "counters" in spec:
                raise REFUSALS("events-or-counters", power=power)
            if "events" in spec:
                counted = self.dial_advancement_counters(power, spec["events"])
                counters[power] = counted["total_counters"]
                notes += [n for n in counted["clarifications"] if n not in notes]
            else:
                counters[power] = spec.get("counters", 0)
        return counters, notes

    def _round_game_end(
        self, turns: dict[str, dict[str, Any]], at_victory: list[str], ruined_regions: int, old_world_deck_empty: bool
    ) -> dict[str, Any]:
        """The game_end check on the victory points and threat after the dial step; a tie it cannot break is refused
        as a tie after the step."""
        threat = {p: t["threat_after"] for p, t in turns.items() if t["threat_after"] is not None}
        try:
            return self.game_end(
                victory_points={p: t["victory_points_after"] for p, t in turns.items()},
                threat=threat,
                dials_at_victory=at_victory,
                ruined_regions=ruined_regions,
                old_world_deck_empty=old_world_deck_empty,
            )
        except RulesError as err:
            raise REFUSALS("tie-after-the-dial-step", problem=err) from None


def _each_turn(turns: dict[str, dict[str, Any]], key: str) -> dict[str, Any]:
    """One part of each Power's dial turn (Rules._dial_turn), by Power."""
    return {power: turn[key] for power, turn in turns.items()}


def _game_end_needs(powers: dict[str, PowerDial], turns: dict[str, dict[str, Any]]) -> list[str]:
    """What the game-end check needs that the players left out: the windows the dials revealed, where a dial's
    Victory window is, each Power's victory points."""
    needs = [f"windows.{at} of {p}" for p, t in turns.items() for at in t["unknown_windows"]]
    needs += [f"victory_at of {p}" for p, t in turns.items() if t["at_victory"] is None]
    needs += [f"victory_points of {p}" for p, spec in powers.items() if "victory_points" not in spec]
    return needs


def _instructions_to_carry_out(turns: dict[str, dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Each Power's revealed instructions other than VP, by what they count, for the Powers that have some."""
    to_do = {p: {k: n for k, n in (t["effects"] or {}).items() if n and k != "vp_gained"} for p, t in turns.items()}
    return {p: todo for p, todo in to_do.items() if todo}
