#!/usr/bin/env python3
"""Writes the send benchmark's inputs into DIR: words.txt (10,000 word rules), regexes.json (50 regex
rules) and texts.txt (2,000 chat texts of about 280 characters, 5% with a rule word). Deterministic."""
import json
import random
import sys

directory = sys.argv[1]
rng = random.Random(42)
letters = "abcdefghijklmnopqrstuvwxyz"
words = ["".join(rng.choice(letters) for _ in range(rng.randint(6, 10))) for _ in range(10_000)]
with open(f"{directory}/words.txt", "w") as out:
    out.write("\n".join(words) + "\n")
regexes = [{"kind": "regex", "pattern": p, "action": "flag"} for p in
           [r"\b\d{3}-\d{3}-\d{%d}\b" % (4 + i % 3) for i in range(10)] +
           [r"buy\s+cheap\s+\w+%d" % i for i in range(10)] +
           [r"(free|cheap)\s+(pills|meds)%d" % i for i in range(10)] +
           [r"[a-z]+%d@[a-z]+\.example" % i for i in range(10)] +
           [r"bit\.ly/[a-z0-9]{%d}" % (5 + i % 4) for i in range(10)]]
with open(f"{directory}/regexes.json", "w") as out:
    json.dump({"rules": regexes}, out)
vocabulary = ("the of and to in is you that it he was for on are as with his they at be this have from or one had by "
              "word but not what all were we when your can said there use an each which she do how their if will up "
              "other about out many then them these so some her would make like him into time has look two more "
              "write go see number no way could people my than first water been call who its now find long down day "
              "did get come made may part hey lol ok thanks great meeting tomorrow tonight weekend game match team "
              "coffee lunch dinner sounds good see you later love this photo").split()
with open(f"{directory}/texts.txt", "w") as out:
    for index in range(2000):
        text = []
        while len(" ".join(text)) < 270:
            text.append(rng.choice(vocabulary))
            if index % 20 == 0 and len(text) == 12:
                text.append(rng.choice(words[:200]))
        out.write(" ".join(text)[:280].strip() + "\n")
