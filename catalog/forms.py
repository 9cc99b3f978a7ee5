from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile
from django.utils.translation import gettext_lazy as _

from .models import PriceKind
from .services import check_upload


class PriceImportForm(forms.Form):
    kind = forms.ChoiceField(label=_("Kind of price list"), choices=PriceKind.choices)
    file = forms.FileField(
        label=_("Price file (CSV or XLSX)"),
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,.xlsx"}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Screen readers read a field's error with the field (the error div has this id).
        for name, bound in self.fields.items():
            bound.widget.attrs["aria-describedby"] = f"error-{name}"

    def clean_file(self) -> Any:
        upload: UploadedFile[bytes] = self.cleaned_data["file"]
        # Size and type are checked before the content is read.
        errors = check_upload(filename=upload.name or "", size=upload.size or 0)
        if errors:
            raise forms.ValidationError([error.reason for error in errors])
        return upload
