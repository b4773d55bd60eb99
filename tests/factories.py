import factory

from merchants.models import Merchant
from payments.models import Customer

PASSWORD = "Sturdy-Passw0rd-42"


class MerchantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Merchant

    email = factory.Sequence(lambda n: f"merchant{n}@shop.example.com")
    business_name = factory.Sequence(lambda n: f"Shop {n}")
    business_url = "https://shop.example.com"
    password = factory.django.Password(PASSWORD)


class CustomerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Customer

    email = factory.Sequence(lambda n: f"customer{n}@mail.example.com")
    first_name = "Ada"
    last_name = "Obi"
    phone = "+2348012345678"
    password = factory.django.Password(PASSWORD)
