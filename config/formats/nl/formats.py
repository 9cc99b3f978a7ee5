# "15 jan. 2026", "15 jan. 2026, 17:46": one date style on every Dutch page.
DATE_FORMAT = "j N Y"
SHORT_DATE_FORMAT = "j N Y"
DATETIME_FORMAT = "j N Y, H:i"
SHORT_DATETIME_FORMAT = "j N Y, H:i"
