"""A small hand-written task (English, four stages of every trigger kind) for the user and session tests."""

TASK = {
    "id": "test-en-tea",
    "subset": "daily",
    "language": "en",
    "domain": "food",
    "persona": {
        "background": "I run a small café and want to add Japanese green teas to the menu.",
        "initial_query": "Which Japanese green teas would work on a café menu?",
        "behavior": "Practical, asks about prices and sourcing, ignores history.",
        "stages": [
            {"name": "Opening", "trigger": {"kind": "start", "condition": "conversation start"},
             "line": "Which Japanese green teas would work on a café menu?"},
            {"name": "Matcha grades", "trigger": {"kind": "mentions", "condition": "the assistant mentions Matcha"},
             "line": "Matcha sounds good. What is the difference between ceremonial and culinary grade matcha?",
             "fallback": "Asks for concrete tea names instead of general advice.", "cues": ["matcha"]},
            {"name": "Uji origin", "trigger": {"kind": "asks", "condition": "the assistant asks whether the user cares about the growing region, e.g. Uji"},
             "line": "Yes, origin matters to me. Is Uji matcha worth the higher price compared with Nishio?",
             "fallback": "Keeps talking about matcha grades, without pointing to any region.", "cues": ["region", "Uji"]},
            {"name": "Suppliers", "trigger": {"kind": "completes", "condition": "the assistant compares \"Uji\" and \"Nishio\" prices"},
             "line": "Great. Last thing: which importers sell wholesale Uji matcha in Europe?",
             "fallback": "Pushes for a real price comparison of the two regions."},
        ],
    },
    "graph": [{"head": "Uji", "relation": "located in", "tail": "Kyoto Prefecture"}],
}

