"""What one clause says: the record the clause analyzer fills."""

from __future__ import annotations

from dataclasses import dataclass, field

from agents.offline.conditions import NumericHit
from schemas.rules import Condition


@dataclass
class ClauseAnalysis:
    """What one clause says.

    Attributes:
        text: The clause without leading connectors.
        trigger: The part of the clause that states the trigger.
        action: The prescribed action, or None.
        conditions: Trigger conditions (protective flags not included).
        numbers: Numbers tied to fields (with or without comparator).
        protective_pos: Protective flags named as present ("sprinklered").
        protective_neg: Protective flags named as absent ("without sprinklers").
        mitigant_fields: Boolean fields named in the mitigant part.
        mitigant_texts: The mitigant parts ("unless ...").
        occupancy: Occupancy values read from the subject.
        excluded: Occupancy values the clause excepts ("except for santa grottos, ...").
        anaphor_size: Refers back to an earlier threshold ("above that size").
        anaphor_op: Comparator applied to an earlier number ("over that").
        continuation: Restates an existing rule ("it stays a referral").
        waivable: Describes when a rule is waived ("the referral can be waived").
        from_to: An exception moving a case "from decline to referral".
        otherwise: Acts on what an accepted range leaves out ("otherwise", "anything closer").
        comparative: A bare comparative opening the clause ("larger operations ..."), or None.
        withdrawn: The clause ends the rule it names ("the moratorium ... is lifted").
        verified: The flag an order to verify made the condition ("verify GPS logs": not
            shown), which a trigger before it turns back into what clears the check.
    """

    text: str
    trigger: str
    action: str | None = None
    conditions: list[Condition] = field(default_factory=list)
    numbers: list[NumericHit] = field(default_factory=list)
    protective_pos: list[str] = field(default_factory=list)
    protective_neg: list[str] = field(default_factory=list)
    mitigant_fields: list[str] = field(default_factory=list)
    mitigant_texts: list[str] = field(default_factory=list)
    occupancy: list[str] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)
    anaphor_size: bool = False
    anaphor_op: str | None = None
    continuation: bool = False
    #: "... the decline stands": the rule's outcome kept (see `lexicon.STANDING`)
    standing: bool = False
    waivable: bool = False
    from_to: bool = False
    otherwise: bool = False
    comparative: str | None = None
    verified: str | None = None
    withdrawn: bool = False
    #: Numbers a reason cites ("because the guideline caps the class at twenty"), with it.
    cited: list[tuple[NumericHit, str]] = field(default_factory=list)
