# One date style on every page, day first as the distributor's European buyers read it:
# "15 Jan 2026", "15 Jan 2026, 17:46" (24-hour clock: no "p.m.").
DATE_FORMAT = "j M Y"
SHORT_DATE_FORMAT = "j M Y"
DATETIME_FORMAT = "j M Y, H:i"
SHORT_DATETIME_FORMAT = "j M Y, H:i"
