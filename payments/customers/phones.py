"""Nigerian mobile numbers, written the many ways people write them, to one
form: E.164 `+234` followed by the 10-digit national number.

    0803 123 4567, 08031234567, 803-123-4567, 2348031234567,
    +234 803 123 4567, +234 (0)803 123 4567, 002348031234567
        -> +2348031234567

Mobile national numbers start 70, 71, 80, 81, 90 or 91 (the networks' ranges);
a landline or a foreign number cannot receive our text messages.
"""

import re

_SEPARATORS = re.compile(r"[\s\-.()/]")
_NATIONAL_MOBILE = re.compile(r"[789][01][0-9]{8}")


class NotANigerianMobile(ValueError):
    """`str()` is the sentence to show the customer."""


def nigerian_mobile(value: str) -> str:
    """`value` in E.164 (`0803 123 4567` -> `+2348031234567`), or
    NotANigerianMobile."""
    written = _SEPARATORS.sub("", value.strip())
    if written.startswith("+"):
        if not written.startswith("+234"):
            raise NotANigerianMobile(
                "Only Nigerian mobile numbers (+234) can receive our text messages."
            )
        written = written[1:]
    elif written.startswith("00"):
        written = written[2:]
    if not written.isdigit():
        raise NotANigerianMobile(
            "Enter the phone number in digits, like 0803 123 4567 or +234 803 123 4567."
        )
    if written.startswith("234") and len(written) > 11:
        national = written[3:].removeprefix("0")
    elif written.startswith("0"):
        national = written[1:]
    else:
        national = written
    if not _NATIONAL_MOBILE.fullmatch(national):
        raise NotANigerianMobile(
            "Enter a Nigerian mobile number of 11 digits, like 0803 123 4567 or "
            "+234 803 123 4567."
        )
    return f"+234{national}"
