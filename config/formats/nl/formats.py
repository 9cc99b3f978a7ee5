from django.utils.translation import pgettext_lazy

# "15 jan. 2026", "15 jan. 2026, 17:46": one date style on every Dutch page, PDF and email.
DATE_FORMAT = "j N Y"
SHORT_DATE_FORMAT = "j N Y"
DATETIME_FORMAT = "j N Y, H:i"
SHORT_DATETIME_FORMAT = "j N Y, H:i"

# "N" is Django's month abbreviation with a full stop (its messages "Jan.", "March",
# "Sept." in the context "abbrev. month"). Django's own Dutch catalogue leaves the stop out
# ("jan"); ours (locale/nl/LC_MESSAGES/django.po) overrides these twelve messages with the
# Dutch abbreviations: jan. feb. mrt. apr. mei jun. jul. aug. sep. okt. nov. dec. ("mei" is
# not shortened, so it has no stop). They are listed here so that makemessages keeps them
# in our catalogue; nothing reads this tuple.
MONTH_ABBREVIATIONS = (
    pgettext_lazy("abbrev. month", "Jan."),
    pgettext_lazy("abbrev. month", "Feb."),
    pgettext_lazy("abbrev. month", "March"),
    pgettext_lazy("abbrev. month", "April"),
    pgettext_lazy("abbrev. month", "May"),
    pgettext_lazy("abbrev. month", "June"),
    pgettext_lazy("abbrev. month", "July"),
    pgettext_lazy("abbrev. month", "Aug."),
    pgettext_lazy("abbrev. month", "Sept."),
    pgettext_lazy("abbrev. month", "Oct."),
    pgettext_lazy("abbrev. month", "Nov."),
    pgettext_lazy("abbrev. month", "Dec."),
)
