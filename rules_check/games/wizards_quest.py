"""Wizard's Quest: the checks, with every number read from the entries named next to it."""

from __future__ import annotations

from ..core import Game, GameData, RulesError, check

DEATH_RANGE_PARAMS = (
    "per_man_or_orc",
    "men_orcs_max",
    "hero_bonus",
    "sorcerer_bonus",
    "dragon",
    "wizard",
    "defender_castle_bonus",
    "defender_forest_or_mountains_bonus",
    "defender_across_bridge_or_great_tunnel_bonus",
)
TWO_PLAYER_PARAMS = ("reinforce_first", "reinforce_second", "reinforce_first_again", "extra_men_defending_treasure")


class Rules(Game):
    def __init__(self, data: GameData):
        super().__init__(data)
        self.DR = data.pick("wizards-quest/death-range", DEATH_RANGE_PARAMS)  # from wizards-quest/death-range
        self.BATTLE_RULE = data.ref("wizards-quest/clarify-battle-resolution")
        self.MEN_PER_KINGDOM_LOCATION = data.param(
            "wizards-quest/reinforcement", "men_per_kingdom_location"
        )  # from wizards-quest/reinforcement
        self.MINIMUM_REINFORCEMENT = data.param("wizards-quest/reinforcement", "minimum_reinforcement")
        self.HERO_COST = data.param("wizards-quest/reinforcement", "hero_cost_men")
        self.SORCERER_COST = data.param("wizards-quest/reinforcement", "sorcerer_cost_men")
        self.TWO_PLAYER = data.pick("wizards-quest/two-player-setup", TWO_PLAYER_PARAMS)  # from wizards-quest/two-player-setup
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
    ) -> dict:
        """The death_range check: see describe()."""
        if men and orcs:
            raise RulesError("a force is men or orcs, not both")
        if dragon or wizard:
            return {"death_range": self.DR["dragon"] if dragon else self.DR["wizard"]}
        parts = {}
        pieces = men or orcs
        if pieces:
            parts["orcs_part" if orcs else "men_part"] = min(pieces * self.DR["per_man_or_orc"], self.DR["men_orcs_max"])
        if hero:
            parts["hero_part"] = self.DR["hero_bonus"]
        if sorcerer:
            parts["sorcerer_part"] = self.DR["sorcerer_bonus"]
        if not parts:
            raise RulesError("an empty force has no death range")
        if side == "defender":
            if attacked_across in ("bridge", "great_tunnel"):
                parts["tunnel_part" if attacked_across == "great_tunnel" else "bridge_part"] = self.DR[
                    "defender_across_bridge_or_great_tunnel_bonus"
                ]
            elif terrain in self.TERRAIN:
                parts["terrain_part"] = self.TERRAIN[terrain]
        return {"death_range": sum(parts.values()), **parts}

    @check("battle")
    def battle(self, side: str, battles: list[dict]) -> dict:
        """The rule is inferred from the tables (the text never states it): a roll at or under the roller's
        own death range kills as many of the opponent's pieces as the roll shows; a higher roll kills none.
        """
        losses = [b["roll"] if b["roll"] <= b["death_range"] else 0 for b in battles]
        key = "defender_losses" if side == "attacker" else "attacker_losses"
        return {key: losses, "clarification": self.BATTLE_RULE}

    @check("reinforcements")
    def reinforcements(self, kingdom_locations: int, heroes: int = 0, sorcerers: int = 0) -> dict:
        """The reinforcements check: see describe()."""
        men = max(kingdom_locations * self.MEN_PER_KINGDOM_LOCATION, self.MINIMUM_REINFORCEMENT)
        cost = heroes * self.HERO_COST + sorcerers * self.SORCERER_COST
        if cost > men:
            raise RulesError(f"{heroes} Hero(es) and {sorcerers} Sorcerer(s) cost {cost} men; only {men} are received")
        return {"men": men - cost, "heroes": heroes, "sorcerers": sorcerers, "total_men_value": men}

    @check("two_player_setup")
    def two_player_setup(self) -> dict:
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
