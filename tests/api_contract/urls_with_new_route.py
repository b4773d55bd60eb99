"""The real URL conf plus one API route nobody listed in the matrix."""

from django.urls import path
from rest_framework.views import APIView

from config.urls import urlpatterns as real_urlpatterns


class BrandNewApi(APIView):
    def get(self, request):
        raise NotImplementedError


urlpatterns = [
    path("api/v1/brand-new-thing", BrandNewApi.as_view()),
    *real_urlpatterns,
]
