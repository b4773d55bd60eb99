"""Small source trees written to a temporary folder, for the tests that read a
repository's imports and module sizes."""

from pathlib import Path


def write_files(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
