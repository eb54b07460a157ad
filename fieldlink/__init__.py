"""Field linking from a data dictionary, shared by offline extraction and retrieval.

`profile_of` reads a `fields.json` (kinds, units, naming words, listed values);
`FieldLinker` links values and noun phrases to its fields (lexical plus optional
embedding similarity); `QueryReader` reads a query into a partial submission.
"""

from fieldlink.linker import FieldLinker, ValueHit
from fieldlink.profile import DictionaryProfile, FieldProfile, profile_of
from fieldlink.query import QueryReader

__all__ = [
    "DictionaryProfile",
    "FieldLinker",
    "FieldProfile",
    "QueryReader",
    "ValueHit",
    "profile_of",
]
