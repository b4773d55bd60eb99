import factory

from merchants.models import Merchant
from merchants.team.models import Member
from payments.models import Customer

PASSWORD = "Sturdy-Passw0rd-42"


class MerchantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Merchant
        skip_postgeneration_save = True

    email = factory.Sequence(lambda n: f"merchant{n}@shop.example.com")
    business_name = factory.Sequence(lambda n: f"Shop {n}")
    business_url = "https://shop.example.com"

    @factory.post_generation
    def owner(merchant, create, extracted, **kwargs):
        """The merchant's first owner, signing in with its e-mail and PASSWORD
        (`MerchantFactory(owner__password=...)` for another)."""
        if create:
            MemberFactory(
                merchant=merchant,
                email=merchant.email,
                role="owner",
                password=kwargs.get("password", PASSWORD),
            )


class MemberFactory(factory.django.DjangoModelFactory):
    """A member of a merchant's team (`role` and `merchant` given)."""

    class Meta:
        model = Member

    email = factory.Sequence(lambda n: f"member{n}@shop.example.com")
    password = factory.django.Password(PASSWORD)


class CustomerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Customer

    email = factory.Sequence(lambda n: f"customer{n}@mail.example.com")
    first_name = "Ada"
    last_name = "Obi"
    phone = "+2348012345678"
    password = factory.django.Password(PASSWORD)
