"""Wizard's Quest: the checks, with every number read from the entries named next to it."""

from __future__ import annotations

from ..core import Game, GameData, RulesError, check

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
        self.MAX_ORCS = data.param("wizards-quest/occupancy-rules", "max_orcs_per_space")  # from wizards-quest/occupancy-rules
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
            raise RulesError(
                f"a force is men or orcs, not both: orcs and players' pieces never share a space ({self.OCCUPANCY_RULE})"
            )
        if hero and sorcerer:
            raise RulesError(f"a Hero and a Sorcerer may not occupy the same space ({self.OCCUPANCY_RULE})")
        if orcs > self.MAX_ORCS:
            raise RulesError(f"only {self.MAX_ORCS} orcs may occupy one space, not {orcs} ({self.OCCUPANCY_RULE})")
        if orcs and (hero or sorcerer):
            raise RulesError(f"a Hero or Sorcerer is a player's piece: it never shares a space with orcs ({self.OCCUPANCY_RULE})")
        if dragon or wizard:
            return {"death_range": self.DR["dragon"] if dragon else self.DR["wizard"]}
        parts = {}
        pieces = men or orcs
        if pieces:
            parts["orcs_part" if orcs else "men_part"] = min(pieces * self.DR["per_man_or_orc"], self.DR["men_orcs_max"])
        alone = not pieces  # "when alone in a location" a Hero or Sorcerer has a death range of his own
        if hero:
            parts["hero_part"] = self.DR["hero_alone" if alone else "hero_bonus"]
        if sorcerer:
            parts["sorcerer_part"] = self.DR["sorcerer_alone" if alone else "sorcerer_bonus"]
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

    def _inflicted(self, roll: dict) -> int:
        return roll["roll"] if roll["roll"] <= roll["death_range"] else 0

    @check("battle")
    def battle(self, battles: list[dict], side: str | None = None) -> dict:
        """The rule is inferred from the tables (the text never states it): a roll at or under the roller's
        own death range kills as many of the opponent's pieces as the roll shows; a higher roll kills none.
        With both sides' rolls (no `side`), a Battle where both fail costs the attacker 1 (orc-rampage-aftermath,
        adopted for every Battle by the clarification). With one side's rolls (the sample tables) only what those
        rolls inflict is known.
        """
        if side is not None:
            key = "defender_losses" if side == "attacker" else "attacker_losses"
            return {key: [self._inflicted(b) for b in battles], "clarification": self.BATTLE_RULE}
        result: dict = {"attacker_losses": [], "defender_losses": [], "both_failed": []}
        for b in battles:
            by_attacker, by_defender = self._inflicted(b["attacker"]), self._inflicted(b["defender"])
            both_failed = by_attacker == 0 and by_defender == 0
            result["defender_losses"].append(by_attacker)
            result["attacker_losses"].append(self.BOTH_FAIL_LOSS if both_failed else by_defender)
            result["both_failed"].append(both_failed)
        result.update(clarification=self.BATTLE_RULE, both_fail_rule=self.BOTH_FAIL_RULE)
        return result

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
