"""Text a merchant or customer typed, where it enters and where it leaves.

Where it enters (a business name, an order reference, a title) it may hold no
control character and no line break (`no_control_characters`, the one rule the
API's serializers, the web forms, the models and so the admin apply). Where it
leaves in an e-mail or a text message it is data inside our sentences, never a
line of its own: `one_line` renders it so, whatever a row stored before the rule
existed holds.
"""

import re
import unicodedata

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible

# C0 and C1 control characters, DEL, and Unicode's line and paragraph
# separators: everything that starts a new line or moves the cursor. A regex
# class body, as the API schema's patterns take it (config.api.request_fields).
CONTROL = r"\x00-\x1f\x7f-\x9f\u2028\u2029"
_CONTROL = re.compile(f"[{CONTROL}]")
CONTROL_MESSAGE = "Line breaks and other control characters are not allowed."

# Unicode "format" characters (bidirectional overrides, zero-width spaces) make
# text read in another order than it is written; in a message they are dropped.
_INVISIBLE = {
    code: None
    for code in (0x061C, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0xFEFF)
    + tuple(range(0x202A, 0x202F))
    + tuple(range(0x2066, 0x206A))
}
_BLANKS = re.compile(rf"[\s{CONTROL}]+")
ELLIPSIS = "..."  # three full stops: "…" is not in the SMS alphabet


@deconstructible
class NoControlCharacters:
    """A field validator (models, Django forms and DRF serializers alike)."""

    message = CONTROL_MESSAGE
    code = "control_characters"

    def __call__(self, value) -> None:
        if isinstance(value, str) and _CONTROL.search(value):
            raise ValidationError(self.message, code=self.code)

    def __eq__(self, other) -> bool:
        return isinstance(other, NoControlCharacters)

    def __hash__(self) -> int:
        return hash(type(self))


no_control_characters = NoControlCharacters()


def one_line(text: object, limit: int) -> str:
    """`text` as a part of one line of a message: every run of spaces, line
    breaks and control characters becomes one space, invisible formatting
    characters go, and what is longer than `limit` characters is cut (between
    words when it can), ending with "..."."""
    flat = unicodedata.normalize("NFC", str(text)).translate(_INVISIBLE)
    flat = _BLANKS.sub(" ", flat).strip()
    if len(flat) <= limit:
        return flat
    cut = flat[: max(0, limit - len(ELLIPSIS))]
    if flat[len(cut)] != " " and " " in cut[len(cut) // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" .") + ELLIPSIS
