"""The README's tables of options and presets match the code."""

from pathlib import Path

import chasetheace as cta

README = (Path(__file__).parent.parent / "README.md").read_text()


def test_every_option_and_preset_is_in_the_readme() -> None:
    for key in cta.OPTIONS:
        assert f"| `{key}` |" in README
    for preset in cta.PRESETS:
        assert f"| `{preset.name}`" in README
        for alias in preset.aliases:
            assert f"`{alias}`" in README
