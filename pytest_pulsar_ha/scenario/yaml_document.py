"""YAML text to plain data (dicts, lists, scalars) with the line of every key path, safe against hostile files.

PyYAML alone expands aliases in full (a few lines of "billion laughs" become billions of values), recurses once
per nesting level (a few thousand ``[`` exhaust the stack), and reports some mistakes where the parser gave up
rather than where they are. Here:

* aliases are followed while converting, against a budget (:data:`ALIAS_BUDGET` values reached through aliases
  in the whole file); an alias that refers to the value containing it is an error;
* nesting is limited to :data:`MAX_DEPTH` levels;
* merge keys (``<<: *base`` or ``<<: [*a, *b]``) follow YAML 1.1: a key given in the mapping itself overrides a
  merged one, and of several merged mappings the first that has a key wins; a key given twice in the mapping
  itself is still an error;
* lines are recorded for the values written in the file, not for each copy an alias makes (the key path inside
  an alias resolves to the alias's line);
* a syntax error in a ``[...]``, ``{...}`` or quoted text is reported at the line that opens it, bad bytes at
  their own line, and no line is past the end of the file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import yaml

from pytest_pulsar_ha.scenario.base import Loc
from pytest_pulsar_ha.scenario.quantities import describe

#: Most values the aliases of a file may expand to, all aliases together (a legit file uses a few hundred).
ALIAS_BUDGET = 10_000

#: Deepest nesting of mappings and lists (a scenario needs about 6 levels).
MAX_DEPTH = 64

_MERGE_TAG = "tag:yaml.org,2002:merge"
_VALUE_TAG = "tag:yaml.org,2002:value"  # the `=` key of YAML 1.1: read as the text "="

Report = Callable[[Loc, int, str], None]


class Document(NamedTuple):
    data: Any
    lines: dict[Loc, int]


class YamlProblem(Exception):
    """The file is not YAML (or not one document): nothing else can be checked."""

    def __init__(self, line: int, message: str, loc: Loc = ()) -> None:
        super().__init__(message)
        self.line = line
        self.message = message
        self.loc = loc


class _AliasNode(yaml.Node):
    """An alias where it is written (``*name``): the node it refers to, and the alias's own place."""

    id = "alias"

    def __init__(self, name: str, target: yaml.Node, start_mark: Any, end_mark: Any) -> None:
        super().__init__(target.tag, target.value, start_mark, end_mark)
        self.name = name
        self.target = target


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, composing aliases as :class:`_AliasNode` and refusing deep nesting."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._depth = 0

    def fetch_flow_collection_start(self, token_class: type[yaml.Token]) -> None:
        # the scanner keeps a possible simple key per flow level: without a limit, deep `[[[[...` is quadratic
        if self.flow_level >= MAX_DEPTH:
            line = self.get_mark().line + 1
            raise YamlProblem(line, f"YAML nested more than {MAX_DEPTH} levels deep; scenario files need a handful")
        super().fetch_flow_collection_start(token_class)

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event: yaml.Event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            target = super().compose_node(parent, index)
            if target is None:  # pragma: no cover - PyYAML raises for an undefined alias
                return None
            return _AliasNode(str(event.anchor), target, event.start_mark, event.end_mark)
        if self._depth >= MAX_DEPTH:
            line = event.start_mark.line + 1 if event.start_mark is not None else 1
            raise YamlProblem(line, f"YAML nested more than {MAX_DEPTH} levels deep; scenario files need a handful")
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Abort(Exception):
    """Conversion stops: the file is hostile (an alias bomb, or aliases nested too deep)."""

    def __init__(self, loc: Loc, line: int, message: str) -> None:
        super().__init__(message)
        self.problem = YamlProblem(line, message, loc)


def compose(text: str, report: Report) -> Document | None:
    """The data of ``text`` and the line of every key path written in it (a mapping entry's line is its key's).

    Raises :class:`YamlProblem` when the text is not one YAML document; ``report(loc, line, message)`` receives
    the problems of single values (keys that are not text, duplicate keys, tags, values YAML cannot read).
    """
    last_line = max(1, len(text.splitlines()))
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as exc:
        raise _reader_problem(exc, text) from None
    try:
        try:
            root = loader.get_single_node()
        except yaml.reader.ReaderError as exc:
            raise _reader_problem(exc, text) from None
        except yaml.MarkedYAMLError as exc:
            raise _syntax_problem(exc, last_line) from None
        except yaml.YAMLError as exc:
            raise YamlProblem(1, f"YAML syntax error: {exc}") from None
        except RecursionError:  # MAX_DEPTH keeps far below the limit; this is a last resort
            raise YamlProblem(1, f"YAML nested too deep; scenario files need at most {MAX_DEPTH} levels") from None
        if root is None:
            return None
        converter = _Converter(loader, report)
        try:
            data = converter.convert(root, (), _line(root))
        except _Abort as exc:
            raise exc.problem from None
        return Document(data, converter.lines)
    finally:
        loader.dispose()


def _reader_problem(exc: yaml.reader.ReaderError, text: str) -> YamlProblem:
    position = max(0, min(exc.position, len(text)))
    line = text.count("\n", 0, position) + 1
    code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
    what = "control character" if code < 0x20 or 0x7F <= code < 0xA0 else "character"
    return YamlProblem(line, f"found the {what} #x{code:04x}, which YAML does not allow in a file; remove it")


def _syntax_problem(exc: yaml.MarkedYAMLError, last_line: int) -> YamlProblem:
    def line_of(mark: yaml.Mark | None) -> int:
        return min(mark.line + 1, last_line) if mark is not None else 1

    problem = exc.problem or "invalid YAML"
    context = exc.context or ""
    if isinstance(exc, yaml.composer.ComposerError) and "single document" in context:
        return YamlProblem(line_of(exc.problem_mark), "expected one YAML document, found several")
    if context.startswith("found duplicate anchor") and exc.context_mark is not None:
        anchor = context.removeprefix("found duplicate anchor ").split(";")[0]
        return YamlProblem(
            line_of(exc.problem_mark),
            f"YAML syntax error: the anchor &{anchor.strip(chr(39))} is defined twice (first on line "
            f"{line_of(exc.context_mark)}); give each anchor its own name",
        )
    opened = context.startswith(("while parsing a flow", "while scanning a quoted scalar"))
    if opened and exc.context_mark is not None and exc.problem_mark is not None:
        what = {
            "while parsing a flow sequence": "the list '[' opened here",
            "while parsing a flow mapping": "the mapping '{' opened here",
            "while scanning a quoted scalar": "the quoted text opened here",
        }.get(context, context.removeprefix("while parsing ").removeprefix("while scanning "))
        found = f"{problem} on line {line_of(exc.problem_mark)}"
        return YamlProblem(line_of(exc.context_mark), f"YAML syntax error: {what} is never closed ({found})")
    where = f" ({context} on line {line_of(exc.context_mark)})" if context and exc.context_mark else ""
    return YamlProblem(line_of(exc.problem_mark or exc.context_mark), f"YAML syntax error: {problem}{where}")


class _Converter:
    def __init__(self, loader: _Loader, report: Report) -> None:
        self.loader = loader
        self.report = report
        self.lines: dict[Loc, int] = {}
        self.expanded = 0  # values reached through aliases so far
        self.expanding: list[_AliasNode] = []  # the aliases being followed, outermost first
        self.merging = 0  # > 0 while converting a merged mapping (its keys take the merge key's line)
        self.open: set[int] = set()  # the mappings and lists being converted (ids of their nodes)
        self.alias_loc: Loc = ()  # where the outermost alias being followed is written

    def convert(self, node: yaml.Node, loc: Loc, line: int) -> Any:
        if isinstance(node, _AliasNode):
            return self._follow(node, loc, line)
        if self.expanding:
            self.expanded += 1
            if self.expanded > ALIAS_BUDGET:
                outer = self.expanding[0]
                raise _Abort(
                    self.alias_loc,
                    _line(outer),
                    f"the alias *{outer.name} expands to more than {ALIAS_BUDGET} values (all aliases of the file "
                    "together): aliases of aliases grow exponentially; write the values out instead",
                )
        elif not self.merging:
            self.lines[loc] = line
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node, loc, line)
        if len(self.open) >= MAX_DEPTH:
            where = (self.alias_loc, _line(self.expanding[0])) if self.expanding else (loc, line)
            raise _Abort(*where, f"YAML nested more than {MAX_DEPTH} levels deep (through aliases)")
        self.open.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                return self._mapping(node, loc)
            return [self.convert(item, (*loc, i), _line(item)) for i, item in enumerate(node.value)]
        finally:
            self.open.discard(id(node))

    def _follow(self, alias: _AliasNode, loc: Loc, line: int) -> Any:
        if not self.expanding and not self.merging:
            self.lines[loc] = line
        if not self.expanding:
            self.alias_loc = loc
        if id(alias.target) in self.open:
            self.report(loc, line, f"the alias *{alias.name} refers to the value that contains it")
            return None
        self.expanding.append(alias)
        try:
            return self.convert(alias.target, loc, line)
        finally:
            self.expanding.pop()

    def _mapping(self, node: yaml.MappingNode, loc: Loc) -> dict[str, Any]:
        explicit: dict[str, Any] = {}
        key_lines: dict[str, int] = {}
        merged: dict[str, Any] = {}
        merge_lines: dict[str, int] = {}
        for key_node, value_node in node.value:
            key_line = _line(key_node)
            if key_node.tag == _MERGE_TAG and isinstance(key_node, yaml.ScalarNode):
                for key, value in self._merge(value_node, (*loc, "<<"), key_line).items():
                    if key not in merged:
                        merged[key], merge_lines[key] = value, key_line
                continue
            found = self._key(key_node, loc, key_line)
            if found is None:
                continue
            key = found
            if key in explicit:
                self.report((*loc, key), key_line, f"duplicate key {key!r} (first on line {key_lines[key]})")
                continue
            key_lines[key] = key_line
            explicit[key] = self.convert(value_node, (*loc, key), key_line)
        if not self.expanding and not self.merging:
            for key in merged.keys() - explicit.keys():
                self.lines[(*loc, key)] = merge_lines[key]
        return {**merged, **explicit}

    def _merge(self, node: yaml.Node, loc: Loc, line: int) -> dict[str, Any]:
        """The entries a merge key brings: of a mapping, or of a list of mappings (the first with a key wins)."""
        resolved = node.target if isinstance(node, _AliasNode) else node
        if isinstance(resolved, yaml.MappingNode):
            items = [node]
        elif isinstance(resolved, yaml.SequenceNode) and all(_is_mapping(item) for item in resolved.value):
            items = list(resolved.value)
        else:
            found = "a list" if isinstance(resolved, yaml.SequenceNode) else describe_node(resolved)
            self.report(loc, line, f"expected a mapping or a list of mappings to merge, found {found}")
            return {}
        result: dict[str, Any] = {}
        self.merging += 1
        try:
            for item in items:
                value = self.convert(item, loc, line)
                if isinstance(value, dict):
                    for key, entry in value.items():
                        result.setdefault(key, entry)
        finally:
            self.merging -= 1
        return result

    def _key(self, node: yaml.Node, loc: Loc, line: int) -> str | None:
        target = node.target if isinstance(node, _AliasNode) else node
        if isinstance(target, yaml.ScalarNode) and target.tag == _VALUE_TAG:
            return "="
        key = self._scalar(target, loc, line) if isinstance(target, yaml.ScalarNode) else None
        if isinstance(key, str):
            return key
        if isinstance(target, yaml.ScalarNode) and key is None and target.tag != "tag:yaml.org,2002:null":
            return None  # the value could not be read: reported
        found = describe(key) if isinstance(target, yaml.ScalarNode) else describe_node(target)
        self.report(loc, line, f"expected keys to be text, found {found}")
        return None

    def _scalar(self, node: yaml.ScalarNode, loc: Loc, line: int) -> Any:
        try:
            return self.loader.construct_object(node)
        except yaml.constructor.ConstructorError as exc:
            if "could not determine a constructor" in str(exc.problem):
                self.report(loc, line, f"expected a plain YAML value, found the tag {node.tag!r}: {exc.problem}")
            else:
                self.report(loc, line, f"cannot read the value {_short(node)} as {_tag_name(node)}: {exc.problem}")
        # PyYAML's constructors fail with plain exceptions on some values (dates out of range, ints too long...)
        except (ValueError, TypeError, AttributeError, ArithmeticError, LookupError) as exc:
            reason = "more than 4300 digits" if "digits" in str(exc) else str(exc) or type(exc).__name__
            self.report(loc, line, f"cannot read the value {_short(node)} as {_tag_name(node)}: {reason}")
        return None


def describe_node(node: yaml.Node) -> str:
    if _is_mapping(node):
        return "a mapping"
    if _is_list(node):
        return "a list"
    return repr(_short_text(str(node.value)))


def _is_mapping(node: yaml.Node) -> bool:
    return isinstance(node.target if isinstance(node, _AliasNode) else node, yaml.MappingNode)


def _is_list(node: yaml.Node) -> bool:
    return isinstance(node.target if isinstance(node, _AliasNode) else node, yaml.SequenceNode)


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _short_text(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else f"{text[:20]}…{text[-10:]}"


def _short(node: yaml.Node) -> str:
    return repr(_short_text(str(node.value)))


def _tag_name(node: yaml.Node) -> str:
    tag = str(node.tag)
    return tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org,2002:") else tag
