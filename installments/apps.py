from django.apps import AppConfig


class InstallmentsConfig(AppConfig):
    name = "installments"
