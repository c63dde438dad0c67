"""How a question or an abstract sentence states a claim: the words that ask, that
contrast the paper with what came before, and that speak of earlier work or of the paper's
own. Shared by the checks in `contradictions`, `misstated` and `credited`."""

from __future__ import annotations

import re

from rag.text import content_terms

ASKING = frozenset(content_terms("why how what which does do did is are paper abstract"))

# A sentence whose subject is what came before the paper: "Yet, existing generative models
# on manifolds rely on …", "In particular, prior methods …" (an opening clause allowed).
EARLIER = re.compile(
    r"^(?:[\w ]{0,25},\s*)?(?:the\s+|most\s+|many\s+)?(?:existing|prior|previous|"
    r"conventional|traditional|current|earlier)\s+(?:[\w-]+\s+){0,3}?(?:methods|approaches|"
    r"models|works?|studies|techniques|algorithms|frameworks|solutions)\b",
    re.I,
)
# The paper's own doing, or a comparison with earlier work ("outperform existing …").
OURS = re.compile(
    r"\b(?:we|our|us|this (?:paper|work)|the proposed|compared (?:to|with)|outperforms?|"
    r"than|unlike|beyond)\b",
    re.I,
)
# A question that asks about earlier work or what the paper changes in it.
CONTRASTING = re.compile(
    r"\b(?:existing|prior|previous|earlier|traditional|conventional|baselines?|limitations?|"
    r"drawbacks?|weakness(?:es)?|fix(?:es)?|address(?:es)?|overcomes?|avoids?|unlike|"
    r"compared?|versus|vs|instead|rather|replaces?|problems?|issues?|suffers?|why|fails?|"
    r"differ(?:s|ent)?|without|than|depart(?:s|ing)?|usual|usually|standard|typical|typically)\b",
    re.I,
)
# A question asking whether, not claiming: "Did it succeed on every task?", "… plus did it
# need any pre-training?"
YES_NO = re.compile(
    r"(?:^|[,;?]\s*|\b(?:plus|and|also|or)\s+)(?:did|does|do|is|are|was|were|can|could|has|have)"
    r"\s+(?:it|they|this|that|the|its|their)\b",
    re.I,
)
