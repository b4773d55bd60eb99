"""Staff run a customer's data requests from the admin (DESIGN section 18),
for a request that came by other means: the Customer admin gains "Export data
(JSON)" and "Erase (anonymise)"; an erasure refused says why."""

from django.contrib import admin, messages

from config.api.errors import DomainError
from payments.customers.models import Customer
from payments.methods.admin import CustomerAdmin

from .download import data_download
from .erasure import customer_erase


@admin.action(description="Export data (JSON)")
def export_data(modeladmin, request, queryset):
    customers = list(queryset[:2])
    if len(customers) != 1:
        modeladmin.message_user(
            request, "Select exactly one customer to export.", messages.ERROR
        )
        return None
    return data_download(customers[0])


@admin.action(description="Erase (anonymise)")
def erase(modeladmin, request, queryset):
    for customer in queryset:
        public_id = customer.public_id
        try:
            customer_erase(customer=customer)
        except DomainError as error:
            modeladmin.message_user(
                request,
                f"{public_id} was not erased: {error.message}",
                messages.ERROR,
            )
        else:
            modeladmin.message_user(request, f"{public_id} was erased.")


class CustomerPrivacyAdmin(CustomerAdmin):
    actions = [export_data, erase]
    list_display = (*CustomerAdmin.list_display, "erased_at")


admin.site.unregister(Customer)
admin.site.register(Customer, CustomerPrivacyAdmin)
