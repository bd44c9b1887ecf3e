"""One module per game: its `Rules` class (see rules_check.core.Game)."""
