"""Every key a configuration parser accepts is documented: in its man
page and in its sample file (commented out where it has no sensible
sample value). The keys are the string literals the parsers compare a
key with (strcmp(key, "...")), so a key added to a parser without its
documentation fails here."""
import glob
import os
import re
import sys

top = os.environ.get("top_srcdir") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..")

# parser sources (glob patterns: a parser split into more files stays
# covered), man page, sample file
SETS = [
    (["gateway/conf*.c"], "man/ibsnmpgw.yaml.5", "etc/ibsnmpgw.yaml"),
    (["tunneld/*.c"], "man/ibsnmp-tunneld.8",
     "etc/ibsnmp-tunneld.yaml"),
]
KEY = re.compile(r'strcmp\(\s*key,\s*"([a-z0-9-]+)"\s*\)')


def read(path):
    with open(os.path.join(top, path)) as f:
        return f.read()


def man_text(path):
    # roff: \- is a hyphen; font changes are not part of the word.
    return re.sub(r"\\f[BIRP]", "", read(path).replace("\\-", "-"))


def word_in(word, text):
    return re.search(r"(^|[^a-z0-9-])" + re.escape(word) + r"($|[^a-z0-9-])",
                     text) is not None


def main():
    passed = failed = 0
    for sources, man, sample in SETS:
        keys = set()
        for pat in sources:
            for src in sorted(glob.glob(os.path.join(top, pat))):
                keys |= set(KEY.findall(read(src)))
        if len(keys) < 5:
            print("not ok - %s: found only %d keys (has the parser "
                  "changed shape?)" % (", ".join(sources), len(keys)))
            failed += 1
            continue
        mtext, stext = man_text(man), read(sample)
        for k in sorted(keys):
            in_man = word_in(k, mtext)
            in_sample = re.search(r"(^|[\s#{,-])" + re.escape(k) + ":",
                                  stext, re.M) is not None
            if in_man and in_sample:
                passed += 1
                continue
            failed += 1
            print("not ok - key '%s' of %s is missing from %s" % (
                k, sources[0], " and ".join(
                    p for p, ok in ((man, in_man), (sample, in_sample))
                    if not ok)))
        print("ok - %s: %d keys checked against %s and %s" % (
            sources[0], len(keys), man, sample))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
