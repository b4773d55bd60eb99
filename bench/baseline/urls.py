import hashlib
import secrets

from django.db import connection
from django.urls import path
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView


class Body(serializers.Serializer):
    merchant_id = serializers.CharField(max_length=40)
    amount = serializers.IntegerField(min_value=10_000, max_value=1_000_000_000)
    currency = serializers.CharField(max_length=3)
    title = serializers.CharField(max_length=200)
    order_reference = serializers.CharField(max_length=100)
    customer_email = serializers.EmailField(required=False)


class BaselineSession(APIView):
    def post(self, request):
        header = request.headers.get("Authorization", "")
        digest = hashlib.sha256(header.removeprefix("Bearer ").encode()).hexdigest()
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT merchant_id FROM merchants_apikey "
                "WHERE key_hash = %s AND revoked_at IS NULL",
                [digest],
            )
            if cursor.fetchone() is None:
                return Response({"detail": "bad key"}, status=401)
            body = Body(data=request.data)
            body.is_valid(raise_exception=True)
            token = "fcs_" + secrets.token_urlsafe(16)
            cursor.execute(
                "INSERT INTO bench_baseline_row (token, body) VALUES (%s, %s)",
                [token, str(body.validated_data)],
            )
        return Response({"ok": True, "data": {"session_token": token}}, status=201)


urlpatterns = [path("baseline/sessions", BaselineSession.as_view())]
