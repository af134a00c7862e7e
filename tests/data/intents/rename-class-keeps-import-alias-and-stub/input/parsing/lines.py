import re


class ItemParser:
    pattern = re.compile(r"(\w+)=(\w+)")

    def pairs(self, text):
        return dict(self.pattern.findall(text))


def parse_all(texts):
    parser = ItemParser()
    return [parser.pairs(t) for t in texts]
