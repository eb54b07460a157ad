import pytest
from pydantic import ValidationError

from memory.underwriting import (
    DecisionPath,
    RiskQuestion,
    RuleHit,
    hit_brief,
    hits_text,
    paths_text,
)


def _hit() -> RuleHit:
    return RuleHit(
        rule_name="Kiln Refer",
        source="Pottery Kiln",
        relation="TRIGGERS",
        target="Kiln Refer",
        fact="[BOP] Pottery kilns are referred.",
        properties={"product_type": "BOP", "action": "refer", "threshold_type": "hard"},
        score=0.123456,
    )


def test_a_risk_check_renders_one_line_per_rule() -> None:
    assert (
        hits_text([_hit()], "kiln")
        == "- Kiln Refer [BOP, refer]: [BOP] Pottery kilns are referred."
    )
    assert hits_text([], "zeppelin") == "No rules found for 'zeppelin'."
    brief = hit_brief(_hit())
    assert (brief["action"], brief["threshold_type"], brief["score"]) == ("refer", "hard", 0.1235)


def test_a_trace_renders_the_path_its_limits_mitigants_and_source() -> None:
    path = DecisionPath(
        rule_name="Crew Cap",
        risk_factor="Large Crew",
        outcomes=["Decline"],
        mitigants=["Safety officer"],
        source="Manual",
        source_type="manual",
        sources=["Manual (manual)", "Crew interview (sme)"],
        product_type="GL",
        action="decline",
        threshold={"field": "crew_size", "operator": "gt", "value": 20},
        threshold_type="soft",
        soft_limit=23,
        conditions=[{"field": "crew_size", "operator": "gt", "value": 20}],
    )
    text = paths_text([path], "crew")
    assert text.splitlines() == [
        "- Large Crew -> Crew Cap -> Decline  [GL, decline]",
        "    fires when: crew_size gt 20",
        "    threshold: crew_size gt 20 (soft, soft limit 23)",
        "    mitigants: Safety officer",
        "    sources: Manual (manual); Crew interview (sme)",
    ]
    assert paths_text([], "crew") == "No decision paths found for 'crew'."


def test_the_risk_question_refuses_an_empty_risk_and_unknown_arguments() -> None:
    assert RiskQuestion(risk="kiln").product_type is None
    with pytest.raises(ValidationError):
        RiskQuestion(risk="")
    with pytest.raises(ValidationError):
        RiskQuestion(risk="kiln", limit=3)  # type: ignore[call-arg]
