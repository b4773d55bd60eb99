from django.contrib import admin

from .models import Customer


@admin.register(Customer)
class CustomerAdmin(admin.ModelAdmin):
    list_display = (
        "public_id",
        "email",
        "first_name",
        "last_name",
        "score",
        "created_at",
    )
    search_fields = ("public_id", "email", "first_name", "last_name", "phone")
    readonly_fields = ("public_id", "score", "created_at", "updated_at")
    exclude = ("password",)
    list_per_page = 50
