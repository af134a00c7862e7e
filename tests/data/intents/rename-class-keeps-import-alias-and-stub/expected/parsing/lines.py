import re


class EntryParser:
    pattern = re.compile(r"(\w+)=(\w+)")

    def pairs(self, text):
        return dict(self.pattern.findall(text))


def parse_all(texts):
    parser = EntryParser()
    return [parser.pairs(t) for t in texts]
