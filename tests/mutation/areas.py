"""What ``make mutate`` mutates, which tests must catch it, and the mutants that cannot be caught.

An area is a SPEC rule's code: the functions that decide it (by module and
function name, so edits elsewhere in a module do not move the scope) and
the tests written for it. docs/testing.md explains the choices and lists
the equivalent mutants below with their reasons.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Area:
    rules: str
    functions: dict[str, tuple[str, ...]]  # module path → function names (innermost definition)
    tests: tuple[str, ...]  # the cheapest killers first: pytest stops at the first failure
    equivalent: tuple[tuple[str, str, str, str], ...] = field(default=())  # (module, operator, line, why)
    # Mutants cosmic-ray has no operator for (a guard or a filter deleted), written out: (module, text, mutated
    # text, what it breaks). Each is applied alone and must be killed like the others.
    named: tuple[tuple[str, str, str, str], ...] = field(default=())


AREAS = {
    "visibility": Area(
        rules="C-1, C-2",
        functions={
            "apps/consent/selectors/visibility.py": (
                "connection_categories", "visible_facts", "visible_query", "shareable_facts",
            ),
            "apps/consent/selectors/visible_set.py": (
                "visible_fact_values", "visible_ids", "build", "_values", "visible_set_read", "_in_database",
            ),
            "apps/memory/models/facts.py": ("shareable_lookups",),
            "apps/memory/services/facts.py": ("fact_create", "fact_update", "fact_archive"),
        },
        tests=(
            "tests/consent/test_visibility_revoked.py",
            "tests/consent/test_visible_set_window.py",
            "tests/consent/test_visibility_no_categories.py",
            "tests/memory/test_fact_update_fields.py",
            "tests/consent/test_visibility.py",
            "tests/memory/test_fact_services.py",
            "tests/consent/test_selectors_visible_set.py",
        ),
        equivalent=(
            ("apps/consent/selectors/visible_set.py", "core/ReplaceAndWithOr",
             "stamps = next((count, folded) for fid, code, count, folded, *_ in result "
             "if fid is None and code is None)",
             "the stamps row is the first branch of the statement's UNION ALL and comes first, so next() takes it "
             "whichever condition picks it"),
            ("apps/consent/selectors/visible_set.py", "core/ReplaceFalseWithTrue",
             'found = statements.bound(Fact, _visible_build(len(categories), ("id",), False), '
             '_kinds(len(categories)),',
             "an ORDER BY inside the subquery a search embeds (``p.record_id IN (…)``) changes no id it selects"),
            ("apps/consent/selectors/visible_set.py", "core/AddNot", "if categories:",
             "the compiled statement and the queryset it is compiled from return the same rows; the condition "
             "only chooses the cheaper one (docs/performance.md)"),
            *(("apps/consent/selectors/visible_set.py", operator,
                'return db.vendor == "postgresql" and db.pg_version >= 140000  # type: ignore[attr-defined]  '
                '# bit_xor(): PostgreSQL 14+',
                "moves the bound by one minor release of PostgreSQL 14; every server the suite runs on is past it")
               for operator in ("core/NumberReplacer", "core/ReplaceComparisonOperator_GtE_Gt")),
        ),
        named=(
            ("apps/consent/selectors/visibility.py",
             "    if connection.revoked_at is not None:\n        return Fact.objects.none()\n",
             "", "visible_facts without its revoked_at guard"),
            ("apps/consent/selectors/visible_set.py", "    if connection.revoked_at is not None:\n        return []\n",
             "", "visible_fact_values without its revoked_at guard"),
            ("apps/consent/selectors/visible_set.py",
             "    if connection.revoked_at is not None:\n        return EMPTY_READ\n",
             "", "visible_set_read without its revoked_at guard (the PostgreSQL statement)"),
            ("apps/memory/services/facts.py", "    if unknown:\n", "    if False:\n",
             "fact_update lets owner, status and version be edited"),
        ),
    ),
    "proposals": Area(
        rules="P-4, P-5",
        functions={
            "apps/consent/services/proposals.py": (
                "_is_due", "_expire", "_earlier", "_submit", "proposal_submit", "_act",
                "proposal_expire_due", "proposal_expire",
            ),
            "apps/consent/services/proposal_checks.py": ("_normal", "fingerprint"),
        },
        tests=(
            "tests/consent/test_proposal_expire.py",
            "tests/consent/test_proposal_fingerprint.py",
            "tests/consent/test_proposals.py",
            "tests/consent/test_proposals_races.py",
        ),
        equivalent=(
            ("apps/consent/services/proposals.py", "core/NumberReplacer",
             ".annotate(live=Case(When(status=Status.PENDING, then=Value(0)), default=Value(1)))",
             "P-4 keeps one row per connection and fingerprint (an identical submission returns or refuses it, "
             "never adds one), so the pending-first order never has two rows to choose between"),
        ),
        named=(
            ("apps/consent/services/proposals.py", "Proposal.objects.select_for_update().get(pk=proposal.pk)",
             "Proposal.objects.select_for_update().get()", "proposal_expire without its pk filter"),
            ("apps/consent/services/proposals.py", "Proposal.objects.select_for_update().get(pk=proposal.pk)",
             "Proposal.objects.select_for_update().filter(status=Status.PENDING).first() or proposal",
             "proposal_expire takes the first pending proposal"),
        ),
    ),
    "slots": Area(
        rules="P-9",
        functions={
            "apps/consent/slot_words.py": ("label_key", "slot_of", "content_words"),
            "apps/consent/selectors/slots.py": (
                "_text", "_similar", "_same_slot", "_says_same", "_fact_texts", "_with_value_meanings", "_judge",
                "slot_judge",
            ),
            "apps/consent/services/proposals.py": ("slot_store", "_confirm_slot"),
            "apps/consent/services/proposal_bulk.py": ("proposals_confirm",),
        },
        tests=("tests/consent/test_slots.py",),
        equivalent=(
            ("apps/consent/selectors/slots.py", "core/ReplaceComparisonOperator_GtE_Gt",
             "return one is not None and other is not None and float(np.dot(one, other)) >= at_least",
             "a similarity is a product of float32 vectors: one exactly at a bar (0.82, 0.85, 0.92) is a "
             "measure-zero event no pair of texts is known to reach"),
            ("apps/consent/services/proposals.py", "core/ReplaceBinaryOperator_Mul_Div",
             "def slot_store(proposal: Proposal, match: SlotMatch, *, save: bool = True) -> Proposal:",
             "the signature's ``*`` made ``/``: every caller passes the proposal and the match by position and "
             "``save`` by name, which both signatures accept"),
            ("apps/consent/services/proposals.py", "core/ReplaceTrueWithFalse",
             "fact = fact_update(fact=fresh.fact, expected_version=locked.slot_version, active_only=True, "
             "**changes)",
             "the judgement read the fact active a moment before in the same transaction; only an archive "
             "committed between that read and the update's row lock tells, a race no test stages"),
        ),
    ),
    "tokens": Area(
        rules="A-2, A-3",
        functions={
            "apps/oauth/validators.py": (
                "save_authorization_code", "validate_code", "invalidate_authorization_code",
                "validate_refresh_token", "save_bearer_token", "_save_bearer_token",
            ),
            "apps/oauth/services.py": ("token_family_open", "token_family_revoke", "token_families_purge"),
        },
        tests=(
            "tests/oauth/test_refresh_binding.py",
            "tests/oauth/test_code_binding.py",
            "tests/oauth/test_replay.py",
            "tests/oauth/test_rules.py",
            "tests/reliability/test_races.py::test_concurrent_refreshes_of_one_token_all_get_a_pair",
            "tests/reliability/test_races.py::test_replay_under_contention_kills_the_whole_family",
        ),
        equivalent=(
        ),
        named=(
            ("apps/oauth/validators.py",
             "if rt.application_id != client.pk or (rt.revoked is None and rt.access_token is None):",
             "if rt.revoked is None and rt.access_token is None:", "a refresh token not bound to its client"),
            ("apps/oauth/validators.py",
             "if rt.application_id != client.pk or (rt.revoked is None and rt.access_token is None):",
             "if rt.application_id != client.pk and (rt.revoked is None and rt.access_token is None):",
             "the client binding's or as and"),
            ("apps/oauth/validators.py", "        if rt is None:\n            return False\n", "",
             "an unknown refresh token without its guard"),
            ("apps/oauth/validators.py",
             "        error = resource_error(requested_resources(request), request=request)\n"
             "        if error is not None:\n            raise error\n        bind_to_mcp(request)\n        family =",
             "        bind_to_mcp(request)\n        family =",
             "no resource check at refresh"),
            ("apps/oauth/validators.py", "        if family is None or family.revoked_at is not None:",
             "        if family.revoked_at is not None:", "a refresh token without a family record"),
            ("apps/oauth/services.py", ".filter(family=family, revoked_at=None)", ".filter(family=family)",
             "token_family_revoke overwrites the first reason"),
        ),
    ),
    "layer": Area(
        rules="R-5",
        functions={
            "apps/retrieval/layer/searching.py": ("searchable_fields", "_confirm"),
            "apps/retrieval/layer/access.py": ("check_pattern", "readable", "readable_top_level"),
            "apps/retrieval/layer/pointers.py": ("ancestors", "covers", "texts_at"),
        },
        tests=(
            "tests/retrieval/layer/test_search_confirm.py",
            "tests/retrieval/layer/test_search.py",
            "tests/retrieval/layer/test_declarations.py",
            "tests/retrieval/layer/test_operations.py",
        ),
        equivalent=(
            ("apps/retrieval/layer/pointers.py", "core/ReplaceAndWithOr",
             "if token == WILDCARD and isinstance(value, list):",
             "declarations reach a list only through * and the services store every list field as a list, never "
             "null, so the two conditions hold together or not at all"),
            ("apps/retrieval/layer/pointers.py", "core/ReplaceAndWithOr",
             "elif isinstance(value, dict) and token in value:",
             "a record's document carries every declared key of an object, null when absent, so an object on "
             "a searchable path always holds the next token (test_search_confirm.py passes over a nameless "
             "participant either way)"),
            ("apps/retrieval/layer/pointers.py", "core/ReplaceAndWithOr",
             "return [(join(tokens), value) for tokens, value in found if isinstance(value, str) and value]",
             "only string and text fields can be declared searchable (declarations.py), so a value is a string or "
             "null; an empty string let through matches no term"),
            ("apps/retrieval/layer/searching.py", "core/NumberReplacer",
             'return {"path": fields[0], "text": ""}  # every term matched, none within one string',
             "unreachable: a term found in a field's joined text lies within one of its strings, since terms "
             "hold no line break"),
        ),
    ),
    "masking": Area(
        rules="AD-2",
        functions={
            "apps/staff/masking.py": (
                "masked_text", "person_id", "revealed_id", "revealed", "hides", "_mask", "_display", "column",
                "stand_in", "_content_names", "get_list_display", "get_list_display_links", "get_list_filter",
                "_filters_structure", "get_search_fields", "lookup_allowed", "_lookup_fields", "get_fieldsets",
                "get_readonly_fields", "record_staff_change", "_rows", "log_addition", "log_change",
                "log_deletions", "get_actions", "_recorded", "run", "_flat", "_masked_names",
            ),
            "apps/staff/selectors.py": ("revealed_person_id",),
            "apps/staff/services.py": ("_write", "staff_reveal"),
        },
        tests=(
            "tests/staff/test_masking.py",
            "tests/staff/test_reveal.py",
            "tests/staff/test_records.py",
            "tests/memory/test_admin.py",
            "tests/staff/test_admin_walk.py",
        ),
        equivalent=(
            ("apps/staff/masking.py", "core/AddNot", "if not field.is_relation or field.related_model is None:",
             "stopping at the first relation changes only lookups past it, and Django refuses those before "
             "lookup_allowed reads the fields: a lookup through a relation is allowed only when a list filter "
             "names it, and get_list_filter keeps no filter with a relation in its path"),
            ("apps/staff/masking.py", "core/ReplaceBreakWithContinue", "break",
             "both breaks of _lookup_fields: past a part that names no field, or past a field that is no "
             "relation, a lookup can only go on with a comparison (``__exact``) or be invalid, which the change "
             "list answers with an error; reading on allows nothing more"),
            ("apps/staff/masking.py", "core/ReplaceComparisonOperator_Is_IsNot",
             "if not field.is_relation or field.related_model is None:",
             "stopping at the first relation changes only lookups past it, which Django refuses first (above)"),
            ("apps/staff/masking.py", "core/ReplaceOrWithAnd",
             "if not field.is_relation or field.related_model is None:",
             "differs only for a relation without a related model (a generic foreign key), which no model with a "
             "personal admin has"),
            ("apps/staff/masking.py", "core/ReplaceUnaryOperator_Delete_Not",
             "if not field.is_relation or field.related_model is None:",
             "stopping at the first relation (and reading on past a field that is none) changes only lookups "
             "Django refuses first (above), or invalid ones"),
            ("apps/staff/masking.py", "core/ReplaceAndWithOr",
             "return len(names) == 1 or (relation and names[1:] == [\"id\"])",
             "a lookup of two fields or more starts with a relation (relation is true), and Django refuses any "
             "that goes past that relation's id before this line (above): names[1:] is [\"id\"] whenever read"),
            ("apps/staff/selectors.py", "core/NumberReplacer",
             "if latest is None or latest[1] is None or latest[1] <= clock.now():",
             "a reveal without an end cannot be stored (CHECK staff_reveal_has_end), and a reveal's person is "
             "never null; either test is false for every row the query can return"),
            ("apps/staff/masking.py", "core/ReplaceFalseWithTrue", "model, relation = self.model, False",
             "relation is read only for lookups of two fields or more, which start with a relation: it is true "
             "there whatever it starts as"),
            ("apps/staff/masking.py", "core/ReplaceAndWithOr",
             "relation = relation or (len(names) == 1 and field.is_relation)",
             "relation is read only for lookups of two fields or more, and a lookup goes past its first field only "
             "when that field is a relation"),
        ),
    ),
}

# Operators left out everywhere, with the reason (docs/testing.md):
EXCLUDED_OPERATORS = (
    # Of the 132 arithmetic swaps keep the four that turn a sum or a product around; the others
    # (shifts, bit operations, powers) on a timedelta or a string are type errors any test hits.
    r"core/ReplaceBinaryOperator_(?!(Add_Sub|Sub_Add|Mul_Div|Div_Mul)$)",
    # Of the 56 comparison swaps keep negation and boundary shifts (the "sufficient" set):
    # == ↔ !=, < ↔ <=, > ↔ >=, is ↔ is not, in ↔ not in.
    r"core/ReplaceComparisonOperator_(?!(Eq_NotEq|NotEq_Eq|Lt_LtE|LtE_Lt|Gt_GtE|GtE_Gt|Is_IsNot|IsNot_Is"
    r"|In_NotIn|NotIn_In)$)",
    # Removing @transaction.atomic or @sensitive_variables changes nothing a single-threaded test
    # can see; the races are tested on PostgreSQL by their own tests, the logs by test_secrets.
    r"core/RemoveDecorator",
    # Insert or replace a variable at random: not reproducible between runs.
    r"core/VariableInserter",
    r"core/VariableReplacer",
)
