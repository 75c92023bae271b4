#!/usr/bin/env python3
"""Checks that the man pages name what the code accepts.

touch-router.5.scd: every top-level table (ConfigurationReader's topLevelKeys) has a
section headed *[table]* or *[[table]]*, and every key a reader accepts (the lists its
`finish(allowed: ...)` calls name) is written *key* inside its table's section.

touch-router-msg.7.scd: every request word ControlRequest.parse accepts (its `case "WORD":`
lines) heads a `## WORD` section; its second words (`stats reset`, `output create`, and
`play touch` from WorkloadRequest.swift) head `## WORD SECOND...`; every subscribe type
(ShellTopic's cases) is shown as "type":"TYPE".

Prints what is missing, and exits 1 if anything is.

    python3 docs/man/check-coverage.py [--root REPO]
"""
import argparse
import pathlib
import re
import sys

STRING = re.compile(r'"([^"\\]*)"')


def bracketed(text, start):
    """The text of the [...] (or (...)) expression that opens at text[start]."""
    pairs = {"[": "]", "(": ")"}
    opener = text[start]
    depth = 0
    for i in range(start, len(text)):
        if text[i] == opener:
            depth += 1
        elif text[i] == pairs[opener]:
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
    raise ValueError("unbalanced brackets at %d" % start)


def array_literal(text, name):
    """The strings of `static let NAME = [...]` in text, or None."""
    match = re.search(r"static let %s(?:\s*:[^=]+)?\s*=\s*\[" % re.escape(name), text)
    if not match:
        return None
    return STRING.findall(bracketed(text, match.end() - 1))


def table_of(text, position, variable):
    """The table a reader variable reads: from the `name:` of its latest
    `var VARIABLE = TableReader(...)` before position, else from its path."""
    declarations = list(re.finditer(r"var %s = TableReader\(" % re.escape(variable), text[:position]))
    if not declarations:
        return None
    declaration = declarations[-1]
    call = bracketed(text, declaration.end() - 1)
    name = re.search(r'name: "(\[\[?[a-z][a-z.-]*\]\]?)', call)
    if name:
        return name.group(1)
    if 'name: ""' in call:
        return ""  # the root
    # `[app."ID"]`: the path names the table.
    path = re.search(r'path: \[\.key\("([a-z-]+)"\)', call)
    if not path:
        before = text[:declaration.start()]
        paths = re.findall(r'let path: \[PathComponent\] = \[\.key\("([a-z-]+)"\)', before)
        path_name = paths[-1] if paths else None
    else:
        path_name = path.group(1)
    return "[%s]" % path_name if path_name else None


def configuration_keys(sources):
    """{table header: [keys]}, and the top-level table names."""
    reader = (sources / "ConfigurationReader.swift").read_text()
    top = array_literal(reader, "topLevelKeys")
    if not top:
        sys.exit("check-coverage: no topLevelKeys in ConfigurationReader.swift")
    tables = {}
    for path in sorted(sources.glob("*.swift")):
        text = path.read_text()
        for call in re.finditer(r"(\w+)\.finish\(allowed: ", text):
            variable = call.group(1)
            argument = text[call.end():text.index("\n", call.end())].rsplit(")", 1)[0]
            table = table_of(text, call.start(), variable)
            if table is None:
                sys.exit("check-coverage: %s: cannot tell which table %s.finish reads" % (path.name, variable))
            if table == "" or argument.startswith("Array(table.keys)"):
                continue  # the root (topLevelKeys, checked below) and [environment]'s free names
            keys = []
            if argument.startswith("["):
                keys = STRING.findall(argument)
            else:
                for name in re.findall(r"[A-Za-z_]\w*", argument):
                    if name == "kindKeys":
                        name = "kinds"  # every kind's parameters, and the kinds' names
                    if name == "privilegeKeys":
                        # One key for each Privilege case: its raw value.
                        keys += re.findall(r'^\s*case \w+ = "([a-z-]+)"', (sources / "Privilege.swift").read_text(), re.M)
                        continue
                    found = array_literal(text, name)
                    if found is None:
                        sys.exit("check-coverage: %s: cannot read the list %s that %s.finish names" % (path.name, name, variable))
                    keys += found
            if not keys:
                sys.exit("check-coverage: %s: no keys found in %s.finish(allowed: %s)" % (path.name, variable, argument))
            known = tables.setdefault(table, [])
            for key in keys:
                if key not in known:
                    known.append(key)
    return top, tables


def sections(page):
    """{header line's table text: its section}, a section running to the next table
    header line or top-level heading."""
    result = {}
    lines = page.splitlines()
    for i, line in enumerate(lines):
        header = re.match(r"^\*(\[\[?[a-z][a-z.-]*)", line)
        if not header:
            continue
        end = i + 1
        while end < len(lines) and not re.match(r"^(\*\[|# )", lines[end]):
            end += 1
        result.setdefault(header.group(1).rstrip("."), "")
        result[header.group(1).rstrip(".")] += "\n".join(lines[i:end]) + "\n"
    return result


def check_configuration(root, missing):
    sources = root / "Sources" / "TouchRouterConfig"
    page = (root / "docs" / "man" / "touch-router.5.scd").read_text()
    top, tables = configuration_keys(sources)
    found = sections(page)
    for name in top:
        if "[" + name not in found and "[[" + name not in found:
            missing.append("touch-router.5.scd: no section for the top-level table '%s' (a line *[%s]* or *[[%s]]*)" % (name, name, name))
    for table, keys in sorted(tables.items()):
        opening = table.rstrip("]")
        section = found.get(opening)
        if section is None:
            missing.append("touch-router.5.scd: no section for %s (a line *%s*)" % (table, table))
            continue
        for key in keys:
            if key.startswith("["):
                if ("*" + key + "*") not in page:
                    missing.append("touch-router.5.scd: the table %s, which %s holds, is not named *%s*" % (key, table, key))
            elif ("*" + key + "*") not in section:
                missing.append("touch-router.5.scd: %s: key '%s' is not named (*%s*) in its section" % (table, key, key))
    # Each recognizer kind's own parameters, in that kind's entry (*KIND* and the
    # indented lines under it), since several kinds share a name such as slop.
    recognizer = (sources / "RecognizerReader.swift").read_text()
    kinds = re.search(r"static let kinds[^=]*=\s*\[", recognizer)
    pairs = re.findall(r'\("([a-z-]+)",\s*(\[[^\]]*\])\)', bracketed(recognizer, kinds.end() - 1)) if kinds else []
    if not pairs:
        sys.exit("check-coverage: no recognizer kinds in RecognizerReader.swift")
    lines = page.splitlines()
    for kind, parameters in pairs:
        starts = [i for i, line in enumerate(lines) if line.strip() == "*%s*" % kind]
        if not starts:
            missing.append("touch-router.5.scd: the recognizer kind '%s' has no entry (a line *%s*)" % (kind, kind))
            continue
        end = starts[0] + 1
        while end < len(lines) and lines[end].startswith("\t"):
            end += 1
        entry = "\n".join(lines[starts[0]:end])
        for parameter in STRING.findall(parameters):
            if ("*" + parameter + "*") not in entry:
                missing.append("touch-router.5.scd: recognizer kind '%s': parameter '%s' is not named (*%s*) in its entry" % (kind, parameter, parameter))
    count = sum(len(keys) for keys in tables.values())
    return len(top), count


def check_requests(root, missing):
    wayland = root / "Sources" / "TouchRouterWayland"
    parser = (wayland / "Control" / "ControlRequest.swift").read_text()
    page = (root / "docs" / "man" / "touch-router-msg.7.scd").read_text()
    headings = [line[3:].split() for line in page.splitlines() if line.startswith("## ")]
    words = re.findall(r'^\s*case "([a-z][a-z-]*)":', parser, re.M)
    if not words:
        sys.exit("check-coverage: no request words (case \"WORD\":) in Control/ControlRequest.swift")
    seconds = []
    for word in words:
        if not any(heading and heading[0] == word for heading in headings):
            missing.append("touch-router-msg.7.scd: request '%s' has no '## %s' section" % (word, word))
    # Second words, matched on (count, "WORD") in the request's own case.
    for block in re.finditer(r'^\s*case "([a-z][a-z-]*)":\n((?:(?!^\s*case ").*\n)*)', parser, re.M):
        for second in re.findall(r'case \(\d+, "([a-z]+)"\)', block.group(2)):
            seconds.append((block.group(1), second))
    workload = (wayland / "WorkloadRequest.swift").read_text()
    seconds += [("play", word) for word in re.findall(r'^\s*case "([a-z]+)":', workload, re.M)]
    for word, second in seconds:
        if not any(len(heading) > 1 and heading[0] == word and heading[1] == second for heading in headings):
            missing.append("touch-router-msg.7.scd: request '%s %s' has no '## %s %s' section" % (word, second, word, second))
    events = (wayland / "ShellEvents.swift").read_text()
    topic_enum = re.search(r"enum ShellTopic[^{]*\{(.*?)\n\}", events, re.S)
    topics = re.findall(r"^\s*case (\w+)\s*$", topic_enum.group(1), re.M) if topic_enum else []
    if not topics:
        sys.exit("check-coverage: no ShellTopic cases in ShellEvents.swift")
    for topic in topics:
        if '"type":"%s"' % topic not in page:
            missing.append('touch-router-msg.7.scd: subscribe type \'%s\' is not shown ("type":"%s")' % (topic, topic))
    return len(words), len(seconds), len(topics)


def main():
    arguments = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    arguments.add_argument("--root", default=pathlib.Path(__file__).resolve().parents[2], type=pathlib.Path)
    root = arguments.parse_args().root
    missing = []
    tables, keys = check_configuration(root, missing)
    words, seconds, topics = check_requests(root, missing)
    for line in missing:
        print(line)
    if missing:
        print("check-coverage: %d missing from the man pages" % len(missing))
        return 1
    print("check-coverage: %d top-level tables, %d keys, %d requests, %d second words, %d subscribe types: all in the man pages"
          % (tables, keys, words, seconds, topics))
    return 0


if __name__ == "__main__":
    sys.exit(main())
