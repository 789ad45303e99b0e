"""django-oauth-toolkit validator: the product's OAuth rules, through DOT's hooks."""

from oauth2_provider.oauth2_validators import OAuth2Validator


class AssistantOAuth2Validator(OAuth2Validator):
    pass
