#!/usr/bin/env python3
"""What the docs say about the code, checked against the code.

test_doc_references.py checks that the paths the docs name exist; this test
checks what a sentence claims about them. It reads README.md, DEVELOPERS.md,
docs/ (docs/learn/ and docs/results/ included) and the comments of the
source files, and fails when:

  - a symbol named with a file is not in that file: "`name` in path",
    "(path, `name`)", a markdown link whose text is a symbol and whose
    target is a source file, a table row with one source file and symbols,
    and, in prose and code comments, "name() in path" or "(path, name)".
    A name that the project defines somewhere must be defined (declared) in
    the file named; a name the project does not define (an API's) must
    appear in it;
  - a `file:line` citation appears (the docs name files and symbols, never
    lines: lines move with every edit);
  - a code line quoted in a fenced block (a statement: it ends with ";") or
    an inline call with arguments is not in the code (blanks ignored; "..."
    stands for anything elided);
  - an API name in backticks (VK_*, CL_*, CU_*, cuda*, vk*, cl*) is in
    neither the code nor the API's headers (judged where they are
    installed), or a lowerCamelCase name in backticks is in no source file
    and no API header (OTHER_PROGRAMS lists the few meant so);
  - a VKSIM_* name (environment variable, CMake option) is in no source,
    script or CMake file;
  - a count or list the code determines disagrees with it: the learning
    path's programs, steps and targets, the headers its steps share, the
    rows of the reading list, scripts/house-check's ceilings as
    docs/design.md states them, and the command-line options given to
    vkcuda-sim (its main command and `bench`);
  - "N lines over F files" outside the reading list's generated table
    (scripts/reading-list; house-check holds it fresh) without the date it
    was counted on.

Each failure is one line: document:line, the claim, what the code says.
Usage: tests/scripts/test_doc_claims.py [--root DIR]   (exit 0 = pass, 1 = a claim is false)
"""
import argparse
import glob
import os
import re
import sys

SOURCE_TOPS = ("app", "renderer", "sim", "lab", "base", "learn", "shaders", "tests", "scripts", "cmake",
               "third_party")
SOURCE_SUFFIXES = (".cpp", ".h", ".cu", ".cuh", ".py", ".glsl", ".vert", ".frag", ".comp", ".cmake", ".sh",
                   ".txt")
CODE_SUFFIXES = (".cpp", ".h", ".cu", ".cuh")
IDENT = r"~?[A-Za-z_]\w*(?:::~?[A-Za-z_]\w*)*"
PATH = r"(?:app|renderer|sim|lab|base|learn|shaders|tests|scripts|cmake)/[\w./-]*\w"
# A file named without its folder ("frame_commands.cpp"): checked where one file has that name.
PATH_OR_NAME = r"(?:" + PATH + r"|(?<![\w/.-])[a-z0-9_]+\.(?:cpp|h|cu|cuh))"
API_HEADERS = ("/usr/include/vulkan/*.h", "/usr/include/vk_video/*.h", "/usr/include/CL/*.h",
               "/usr/local/cuda/include/*.h", "/usr/local/cuda-*/include/*.h")
# Names that are real but in no header installed here: the Vulkan loader's
# environment variables, and NVIDIA's cl_nv_d3d9_sharing (its cl_d3d9_ext.h
# ships with NVIDIA's OpenCL SDK, not with the Khronos headers).
LOADER_VARIABLES = ("VK_LAYER_PATH", "VK_ADD_", "VK_ICD_", "VK_DRIVER_FILES", "VK_LOADER_", "VK_INSTANCE_LAYERS")
API_ELSEWHERE = {"clGetDeviceIDsFromD3D9NV", "CL_CONTEXT_D3D9_DEVICE_NV", "clEnqueueAcquireD3D9ObjectsNV",
                 "CL_D3D9_RESOURCE_NOT_ACQUIRED_NV", "CL_D3D9_RESOURCE_ALREADY_ACQUIRED_NV",
                 "clEnqueueReleaseD3D9ObjectsNV"}
# lowerCamelCase names in backticks that are no project's or installed API's
# symbol, and are meant so: MangoHud's function that writes its summary,
# the cuda-samples program that design.md holds up as the anti-model, and
# GLFW 3.4's loader call, which Debian 12's GLFW 3.3 lacks.
OTHER_PROGRAMS = {"writeSummary", "simpleVulkan", "glfwInitVulkanLoader"}
API_PREFIXES = ("vk", "cuda", "cu", "cl", "glfw", "nvtx", "lib")  # APIs and libraries: the check above
NUMBER_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven "
                                           "twelve thirteen fourteen fifteen sixteen".split())}
LINE_CITATION = re.compile(r"\b[\w/.-]+\.(?:cpp|h|cu|cuh|py|glsl|vert|frag|cmake|md):\d+\b")
NAME = r"(?P<name>~?[A-Za-z_]\w*)"
DEFINITIONS = [re.compile(p, re.MULTILINE) for p in (
    r"\b(?:struct|class|enum(?:\s+class)?|union|using|namespace)\s+" + NAME,
    r"\btypedef\b[^;]*\b" + NAME + r"\s*;",
    r"#\s*define\s+" + NAME,
    r"^\s*(?:def|function|macro)\s*\(?\s*" + NAME,  # python, cmake
    # a function's declaration or definition: a type, then the name and "("
    r"^[ \t]*(?:template\s*<[^>]*>\s*)?(?:[\w:<>,*&\[\]]+[ \t]+)+[*&]?(?:\w+::)*" + NAME + r"\s*\(",
    # a variable, constant or member: a type, then the name
    r"^[ \t]*(?:[\w:<>,*&]+[ \t]+)+[*&]?" + NAME + r"\s*(?:=|;|\{|\[|,|\))",
    r"^[ \t]*" + NAME + r"\s*(?:=\s*[^=;]+)?,?[ \t]*(?://.*)?$",  # an enumerator
    r"^" + NAME + r"\s*=[^=]",  # a script's variable
    r"\b(?P<owner>\w+)::(?P<name>~?(?P=owner))\s*\(",  # a constructor or destructor, out of its class
    r"^[ \t]*(?:explicit[ \t]+)?(?P<name>~\w+)\s*\(",  # a destructor in its class
    r"^[ \t]*explicit[ \t]+" + NAME + r"\s*\(",
    r"(?:add_executable|add_library|add_test|learn_step)\s*\(\s*(?:NAME\s+)?" + NAME,
)]
KEYWORDS = {"return", "else", "case", "throw", "new", "delete", "co_return", "goto", "sizeof"}


class Code:
    """The repository's source files, read once."""

    def __init__(self, root):
        self.root = root
        self.texts = {}
        for top in SOURCE_TOPS:
            for path in glob.glob(os.path.join(root, top, "**", "*"), recursive=True):
                relative = os.path.relpath(path, root)
                # This script is left out: the names it lists would vouch for themselves.
                if os.path.isfile(path) and (relative.endswith(SOURCE_SUFFIXES) or "." not in
                                             os.path.basename(path)) and "/diffs/" not in relative \
                        and relative != os.path.relpath(os.path.abspath(__file__), os.path.abspath(root)):
                    try:
                        self.texts[relative] = open(path, encoding="utf-8").read()
                    except (UnicodeDecodeError, OSError):
                        pass
        for name in ("CMakeLists.txt", "CMakePresets.json"):
            self.texts[name] = open(os.path.join(root, name), encoding="utf-8").read()
        code = [t for f, t in self.texts.items() if f.endswith(CODE_SUFFIXES) or f.startswith("shaders/")]
        # Whole files without blanks, and again without their // comments: a
        # quote may run over several lines, and may leave the comments out.
        self.squeezed = "\n".join(squeeze(t) for t in code)
        self.uncommented = "\n".join(squeeze(re.sub(r"//[^\n]*", "", t)) for t in code)
        self.words = set(re.findall(r"\w+", "\n".join(self.texts.values())))
        self.defined = {}
        self.apiWords = None

    def defines(self, file, name):
        """Whether file declares or defines name (a function, type, constant, member, macro, enumerator)."""
        if file not in self.texts:
            return False
        last = name.split("::")[-1]
        if last not in self.definitions(file):
            return False
        owner = name.split("::")[-2] if "::" in name else None
        return not owner or re.search(r"\b" + re.escape(owner) + r"\b", self.texts[file]) is not None

    def definitions(self, file):
        """The names file declares or defines, found once per file."""
        if file not in self.defined:
            names = set()
            for pattern in DEFINITIONS:
                for match in pattern.finditer(self.texts[file]):
                    if match.group(0).split()[0] not in KEYWORDS:
                        names.add(match.group("name"))
            self.defined[file] = names
        return self.defined[file]

    def definedSomewhere(self, name):
        last = name.split("::")[-1]
        return any(last in self.definitions(f) for f in self.texts if definitionFile(f))

    def resolve(self, file):
        """A repository path as given, or the one source file with that name."""
        if "/" in file:
            return file
        found = [f for f in self.texts if os.path.basename(f) == file]
        return found[0] if len(found) == 1 else file

    def buildsFrom(self, name, file):
        """Whether name is a target or test that a CMakeLists.txt makes from file."""
        return any(f.endswith("CMakeLists.txt") and name in self.definitions(f) and
                   os.path.basename(file) in self.texts[f] for f in self.texts)

    def mentions(self, file, name):
        return re.search(r"\b" + re.escape(name.split("::")[-1]) + r"\b", self.texts.get(file, "")) is not None

    def hasHeadersFor(self, word):
        """Whether the API that word belongs to has its headers installed here (else it is not judged)."""
        family = "cuda" if re.match(r"cuda|CU_|CUDA_", word) else "cl" if re.match(r"cl|CL_", word) else "vk"
        marker = {"cuda": "cudaMalloc", "cl": "clCreateBuffer", "vk": "vkCreateBuffer"}[family]
        return marker in self.api()

    def api(self):
        """Identifiers of the installed API headers (None where none are installed)."""
        if self.apiWords is None:
            words = set()
            for pattern in API_HEADERS:
                for path in glob.glob(pattern):
                    words.update(re.findall(r"\w+", open(path, encoding="utf-8", errors="replace").read()))
            self.apiWords = words
        return self.apiWords


def definitionFile(file):
    return file.endswith(CODE_SUFFIXES + (".py",)) or "." not in os.path.basename(file) or file.endswith("CMakeLists.txt")


def commentOf(line):
    """A source line's comment ("" when it has none)."""
    for marker in ("//", "/*"):
        if marker in line:
            return line[line.index(marker):]
    return line if re.match(r"^\s*\*", line) else ""


def squeeze(text):
    return re.sub(r"\s+", "", text)


def documents(root):
    names = ["README.md", "DEVELOPERS.md"]
    names += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "**", "*.md"),
                                                                 recursive=True))
    return names


def blocks(lines):
    """(kind, [(number, line)]): 'code' for fenced blocks, 'table' for table rows, 'prose' for paragraphs."""
    fenced, current, kind = False, [], None
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            if fenced:
                yield "code", current
                current, kind = [], None
            elif current:
                yield kind, current
                current, kind = [], None
            fenced = not fenced
            continue
        if fenced:
            current.append((number, line))
            continue
        lineKind = "table" if line.lstrip().startswith("|") else "prose"
        if not line.strip() or lineKind != kind or lineKind == "table":
            if current:
                yield kind, current
            current, kind = [], None
        if line.strip():
            current.append((number, line))
            kind = lineKind
    if current:
        yield kind or "prose", current


def joined(block):
    """A block's lines as one text, and the line number of each offset."""
    text, starts = "", []
    for number, line in block:
        starts.append((len(text), number))
        text += line.strip() + " "
    return text, starts


def lineAt(starts, offset):
    number = starts[0][1]
    for start, n in starts:
        if start > offset:
            break
        number = n
    return number


def symbolsIn(text):
    """The symbols of a link's text or a list of backticked names: "a, b and c" -> [a, b, c]."""
    names = []
    for part in re.split(r",\s*|\s+and\s+|\s+or\s+|\s*/\s*", text):
        part = part.strip().strip("`").strip()
        part = re.sub(r"\(\)$", "", part)
        part = re.sub(r"^(?:struct|class|enum)\s+", "", part)
        if not re.fullmatch(IDENT, part):
            return []
        names.append(part)
    return names


def isSourceFile(path):
    return path.endswith(CODE_SUFFIXES + (".py", ".glsl", ".vert", ".frag")) or path.startswith("scripts/")


class Checker:
    def __init__(self, root):
        self.root = root
        self.code = Code(root)
        self.problems = []

    def report(self, where, claim, truth):
        self.problems.append(f"{where}: {claim}: {truth}")

    # --- a symbol named with a file -------------------------------------
    def checkSymbol(self, where, name, file):
        if name.split("::")[-1] in ("main",) and not file.endswith(CODE_SUFFIXES):
            return
        code = self.code
        if file not in code.texts:
            return  # a missing path is test_doc_references.py's to report
        if code.definedSomewhere(name):
            if not code.defines(file, name) and not code.buildsFrom(name, file):
                homes = sorted(f for f in code.texts if definitionFile(f) and code.defines(f, name))
                self.report(where, f"`{name}` in {file}",
                            f"{file} does not define it" + (f"; defined in {', '.join(homes[:3])}" if homes else ""))
        elif not code.mentions(file, name):
            self.report(where, f"`{name}` in {file}", f"{file} never names it")

    def symbolClaims(self, name, kind, block):
        base = os.path.dirname(name)
        text, starts = joined(block)
        # [symbols](source file)
        for match in re.finditer(r"\[([^\]]+)\]\(([^)\s#]+)(?:#[^)]*)?\)", text):
            target = os.path.normpath(os.path.join(base, match.group(2)))
            if isSourceFile(target):
                for symbol in symbolsIn(match.group(1)):
                    self.checkSymbol(f"{name}:{lineAt(starts, match.start())}", symbol, target)
        names = r"(`" + IDENT + r"(?:\(\))?`(?:(?:,\s*|\s+and\s+|\s+or\s+)`" + IDENT + r"(?:\(\))?`)*)"
        # `a`, `b` and `c` in path   /   `a` (path)
        for match in re.finditer(names + r"\s+(?:in|of|from|\()\s*`?(" + PATH_OR_NAME + r")`?", text):
            for symbol in symbolsIn(match.group(1)):
                self.checkSymbol(f"{name}:{lineAt(starts, match.start())}", symbol, self.code.resolve(match.group(2)))
        # Unquoted, as in the code's comments: name() in path, (path, name)
        self.commentClaims(name, None, starts, text)
        # `a`, path: what it does
        for match in re.finditer(r"\(" + names + r",\s*`?(" + PATH + r")`?[:),]", text):
            for symbol in symbolsIn(match.group(1)):
                self.checkSymbol(f"{name}:{lineAt(starts, match.start())}", symbol, match.group(2))
        # (path, `a`)  /  path's `a`
        for match in re.finditer(r"(?:\(|\b)`?(" + PATH + r")`?(?:,\s*|'s\s+)" + names, text):
            for symbol in symbolsIn(match.group(2)):
                self.checkSymbol(f"{name}:{lineAt(starts, match.start())}", symbol, match.group(1))
        if kind == "table":
            for number, line in block:
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                files = [c.strip("`") for c in cells if re.fullmatch(r"`?" + PATH + r"`?", c)]
                if len(files) != 1 or not isSourceFile(files[0]):
                    continue
                for cell in cells:
                    if re.fullmatch(r"`[^`]+`", cell) and cell.strip("`") != files[0]:
                        for symbol in symbolsIn(cell):
                            self.checkSymbol(f"{name}:{number}", symbol, files[0])

    def commentClaims(self, file, comments, starts=None, text=None):
        """A code comment's (or a paragraph's) "name() in path" / "(path, name)": a camelCase name, a
        name with "()" or "::". comments: one text per line; or, for a paragraph, its joined text and
        the line of each offset (joined())."""
        symbol = r"\b((?:[a-z]+[A-Z]\w*|[A-Z]\w*[a-z]\w*::~?\w+|\w+\(\)))"
        pieces = [(None, text)] if text is not None else enumerate(comments, 1)
        for number, comment in pieces:
            def where(match):
                return f"{file}:{number if starts is None else lineAt(starts, match.start())}"
            for match in re.finditer(symbol + r"(?:\(\))?\s+(?:in|from)\s+(" + PATH + r")", comment):
                self.checkSymbol(where(match), match.group(1).rstrip("()"), match.group(2))
            for match in re.finditer(r"\((" + PATH + r"),\s*" + symbol + r"\)", comment):
                self.checkSymbol(where(match), match.group(2).rstrip("()"), match.group(1))

    # --- file:line citations ---------------------------------------------
    def lineCitations(self, name, lines):
        for number, line in enumerate(lines, 1):
            for match in LINE_CITATION.finditer(line):
                if re.search(r"<line>|:\d+:\d+", line[match.start():match.end() + 3]):
                    continue
                self.report(f"{name}:{number}", f"cites {match.group(0)}",
                            "name the file and the symbol; line numbers move with every edit")

    # --- quoted code --------------------------------------------------------
    def checkQuote(self, where, quote):
        """quote, blanks ignored, is in the code: with its comments if it has one (a single line), else
        against the code without comments; "..." stands for anything."""
        lines = quote.splitlines()
        withComment = len(lines) == 1 and "//" in quote
        text = quote if withComment else re.sub(r"//[^\n]*", "", quote)
        haystack = self.code.squeezed if withComment else self.code.uncommented
        at = 0
        for piece in (squeeze(p) for p in re.split(r"\.\.\.|…", text)):
            found = haystack.find(piece, at) if piece else at
            if found < 0:
                shown = " ".join(quote.split())
                self.report(where, f"quotes `{shown if len(shown) < 120 else shown[:117] + '...'}`",
                            "no source file holds that code")
                return
            at = found + len(piece)

    def quotedCode(self, name, kind, block):
        if kind == "code":
            # Statements: lines gathered up to one that ends in ";" (a diff's "+"/"-" marks dropped).
            gathered, first = [], None
            for number, line in block:
                body = line[1:] if re.match(r"^[+-]\s", line) else line
                if re.match(r"^\s*(?:\$|#|//|\*|cmake|build|VKSIM|ctest|scripts/|python)", body) or not body.strip():
                    gathered, first = [], None
                    continue
                gathered.append(body.rstrip())
                first = first or number
                if re.search(r";(?:\s*//.*)?$", body.strip()):
                    statement = "\n".join(gathered)
                    if re.search(r"[=(]", statement) and not re.search(r"\s#\s|&&|\|\||^\w+\s*=\s*\S+;\s*$",
                                                                        statement):
                        self.checkQuote(f"{name}:{first}", statement)
                    gathered, first = [], None
                elif len(gathered) > 8:
                    gathered, first = [], None
            return
        if name == "docs/interop-reference.md":
            return  # its calls are the APIs' own signatures, not this program's lines
        for number, line in block:
            for span in re.findall(r"`([^`]+)`", line):
                # A call with a literal, a member or an address among its arguments is a quote of
                # a line; one with bare parameter names is a signature, described.
                call = re.fullmatch(r"([\w:.>\[\]-]+)\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*;?", span)
                if call and re.search(r"\d|\.|->|&", call.group(2)) and "," in call.group(2) \
                        and not re.search(r"\.\.\.|…|<|\bor\b|\||\{", span):
                    self.checkQuote(f"{name}:{number}", span)

    # --- API constants ------------------------------------------------------
    def projectVariables(self, name, lines):
        """Every VKSIM_* name (an environment variable or a CMake option) is one the code reads."""
        for number, line in enumerate(lines, 1):
            for word in sorted(set(re.findall(r"\bVKSIM_[A-Z0-9_]*[A-Z0-9]\b", line))):
                if word not in self.code.words:
                    self.report(f"{name}:{number}", f"names {word}", "no source, script or CMake file reads it")

    def apiNames(self, name, lines):
        api = self.code.api()
        if not api:
            return
        for number, line in enumerate(lines, 1):
            for span in re.findall(r"`([^`]+)`", line):
                for word in re.findall(r"\b(?:VK|CL|CU|CUDA)_[A-Z0-9_]*[A-Z0-9]\b|\bcuda[A-Z]\w+|\bvk[A-Z]\w+|"
                                       r"\bVk[A-Z]\w+|\bcl[A-Z]\w+", span):
                    if word not in api and word not in self.code.words and word not in API_ELSEWHERE \
                            and not word.startswith(LOADER_VARIABLES) and self.code.hasHeadersFor(word):
                        self.report(f"{name}:{number}", f"names `{word}`",
                                    "neither the code nor the installed API headers define it")
                # A function or variable name (lowerCamelCase) that nothing defines: renamed or gone.
                for word in re.findall(r"(?<![\w.$/-])[a-z]+[A-Z]\w*\b", span):
                    if word not in api and word not in self.code.words and word not in OTHER_PROGRAMS \
                            and not re.match(r"(?:%s)[A-Z]" % "|".join(API_PREFIXES), word):
                        self.report(f"{name}:{number}", f"names `{word}`", "no source file or API header has that name")

    def run(self):
        for name in documents(self.root):
            lines = open(os.path.join(self.root, name), encoding="utf-8").read().splitlines()
            self.lineCitations(name, lines)
            self.apiNames(name, lines)
            self.projectVariables(name, lines)
            for kind, block in blocks(lines):
                if kind != "code":
                    self.symbolClaims(name, kind, block)
                self.quotedCode(name, kind, block)
            for check in COUNT_CHECKS:
                check(self, name, lines)
        for file, text in sorted(self.code.texts.items()):
            if file.endswith(CODE_SUFFIXES):
                comments = [commentOf(line) for line in text.splitlines()]
                self.lineCitations(file, comments)
                self.commentClaims(file, comments)
        return self.problems


# --- counts and lists the code determines ----------------------------------
def learnSteps(code):
    return sorted(f for f in code.texts if re.fullmatch(r"learn/\d\d_\w+\.(?:cu|cpp)", f))


def learnTargets(code):
    return ["learn_" + os.path.splitext(os.path.basename(f))[0] for f in learnSteps(code)]


def numberOf(word):
    word = word.lower()
    return int(word) if word.isdigit() else NUMBER_WORDS.get(word)


def lineOf(text, offset):
    return text.count("\n", 0, offset) + 1


def countLearnPrograms(checker, name, lines):
    steps = len(learnSteps(checker.code))
    text = "\n".join(lines)
    for match in re.finditer(r"\b(\w+)\s+(?:short\s+)?(?:standalone\s+)?(?:programs|steps)\b", text):
        count = numberOf(match.group(1))
        near = text[max(0, match.start() - 200):match.end() + 200]
        if count is not None and count > 2 and count != steps and "learn" in near:
            checker.report(f"{name}:{lineOf(text, match.start())}", f"\"{' '.join(match.group(0).split())}\"",
                           f"learn/ holds {steps} step programs")


def countLearnTargets(checker, name, lines):
    targets = learnTargets(checker.code)
    for number, line in enumerate(lines, 1):
        match = re.search(r"`(learn_\w+)`\s*(?:\.\.\.|…|to)\s*`(learn_\w+)`", line)
        if match and (match.group(1), match.group(2)) != (targets[0], targets[-1]):
            checker.report(f"{name}:{number}", f"targets {match.group(1)} ... {match.group(2)}",
                           f"learn/CMakeLists.txt builds {targets[0]} ... {targets[-1]}")
        for target in re.findall(r"\blearn_\d\d_\w+", line):
            if target not in targets:
                checker.report(f"{name}:{number}", f"target {target}", "learn/CMakeLists.txt builds no such target")


def countLearnHeaders(checker, name, lines):
    headers = sorted(f for f in checker.code.texts if re.fullmatch(r"learn/common/\w+\.h", f))
    text = " ".join(lines)
    for match in re.finditer(r"steps share is in (\w+) headers", text):
        if numberOf(match.group(1)) != len(headers):
            line = next(i for i, l in enumerate(lines, 1) if "steps share" in l)
            checker.report(f"{name}:{line}", f"\"{match.group(0)}\"",
                           f"learn/common/ holds {len(headers)}: {', '.join(os.path.basename(h) for h in headers)}")


def countReadingList(checker, name, lines):
    text = "\n".join(lines)
    rows = None
    for match in re.finditer(r"reading[ -]list(?:(?!\.\s).){0,200}?\b(\w+)\s+(functions|rows|entries)\b", text,
                             re.DOTALL):
        rows = rows if rows is not None else readingListRows(checker.root)
        count = numberOf(match.group(1))
        if count is not None and count != rows:
            checker.report(f"{name}:{lineOf(text, match.end())}", f"\"... {match.group(1)} {match.group(2)}\"",
                           f"scripts/reading-list prints {rows} rows (functions and types)")
    for number, line in enumerate(lines, 1):
        for match in re.finditer(r"\b([\d,]+) lines over (\d+) files", line):
            if line.startswith("Total: ") and name == "docs/interop-walkthrough.md":
                continue  # the generated table's total: scripts/house-check holds it
            if not re.search(r"20\d\d-\d\d-\d\d", " ".join(lines[max(0, number - 4):number + 3])):
                checker.report(f"{name}:{number}", f"\"{match.group(0)}\"",
                               "a count the code determines: generated (scripts/reading-list) or dated, never "
                               "written by hand")


def readingListRows(root):
    import importlib.machinery
    path = os.path.join(root, "scripts", "reading-list")
    module = importlib.machinery.SourceFileLoader("reading_list", path).load_module()
    return len(module.rows(__import__("pathlib").Path(root)))


def cliOptions(code):
    """({main options}, {bench options}): the "--name" literals of app/cli.cpp, those of
    addBenchCommand's body being bench's."""
    text = code.texts.get("app/cli.cpp", "")
    start = text.find("addBenchCommand(CLI::App&")
    end = text.find("return command;", start)
    benchText = text[start:end] if start >= 0 and end >= 0 else ""
    bench = set(re.findall(r'"(--[\w-]+)"', benchText)) | {"--help"}
    main = set(re.findall(r'"(--[\w-]+)"', text.replace(benchText, ""))) | {"--help", "--version"}
    return main, bench


def countOptions(checker, name, lines):
    main, bench = cliOptions(checker.code)
    commands, number, pending = [], 0, ""
    for number, line in enumerate(lines, 1):
        # A command continued with "\" is one command, reported at its last line.
        pending += " " + line.rstrip()
        if pending.endswith("\\"):
            pending = pending[:-1]
            continue
        commands.append((number, pending))
        pending = ""
    for number, line in commands:
        for match in re.finditer(r"\bvkcuda-sim((?:\s+[^\s|;&#`]+)*)", line):
            options = main
            for word in match.group(1).split():
                if word == "bench":
                    options = bench
                elif re.fullmatch(r"--[\w-]+", word.split("=")[0]) and word.split("=")[0] not in options:
                    option = word.split("=")[0]
                    command = "vkcuda-sim bench" if options is bench else "vkcuda-sim"
                    checker.report(f"{name}:{number}", f"{command} {option}",
                                   f"app/cli.cpp gives {command} no {option} option")
    for number, line in enumerate(lines, 1):
        for match in re.finditer(r"\b(\w+) (?:command-line )?options\b", line):
            count = numberOf(match.group(1))
            if count is not None and count > 2 and count not in (len(main), len(bench)):
                checker.report(f"{name}:{number}", f"\"{match.group(0)}\"",
                               f"app/cli.cpp has {len(main)} options and bench {len(bench)}")


def houseCeilings(checker, name, lines):
    """The house-check ceilings docs/design.md states, against scripts/house-check's constants."""
    if name != "docs/design.md":
        return
    script = checker.code.texts.get("scripts/house-check", "")
    value = {key: int(number) for key, number in re.findall(r"^(MAX_\w+) = (\d+)", script, re.MULTILINE)}
    text = "\n".join(lines)
    claims = [(r"runs over (\d+)\s+lines or (\d+) files", ("MAX_READING_LINES", "MAX_READING_FILES")),
              (r"more than (\d+) project files", ("MAX_REACH",)),
              (r"more than (\d+) source files sit directly in app/", ("MAX_FILES_DIRECTLY_IN_APP",)),
              (r"is over (\d+) lines\s+or takes more than (\d+) parameters", ("MAX_FUNCTION_LINES", "MAX_PARAMETERS"))]
    for pattern, keys in claims:
        for match in re.finditer(pattern, text):
            for number, key in zip(match.groups(), keys):
                if int(number) != value.get(key):
                    checker.report(f"{name}:{lineOf(text, match.start())}", f"\"{' '.join(match.group(0).split())}\"",
                                   f"scripts/house-check's {key} is {value.get(key)}")


COUNT_CHECKS = [houseCeilings, countLearnPrograms, countLearnTargets, countLearnHeaders, countReadingList, countOptions]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
    args = parser.parse_args()
    checker = Checker(args.root)
    problems = checker.run()
    for problem in problems:
        print(problem)
    print(f"test_doc_claims: {len(documents(args.root))} documents, {len(problems)} false claims")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
