"""Field linking from a data dictionary, shared by offline extraction and retrieval.

`profile_of` reads a `fields.json` (kinds, units, naming words, listed values);
`FieldLinker` links values and noun phrases to its fields (lexical plus optional
embedding similarity); `QueryReader` reads a query into a partial submission.
"""

from memory.underwriting.fieldlink.linker import FieldLinker, ValueHit
from memory.underwriting.fieldlink.profile import DictionaryProfile, FieldProfile, profile_of
from memory.underwriting.fieldlink.query import QueryReader

__all__ = [
    "DictionaryProfile",
    "FieldLinker",
    "FieldProfile",
    "QueryReader",
    "ValueHit",
    "profile_of",
]
