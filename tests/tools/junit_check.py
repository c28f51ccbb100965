#!/usr/bin/env python3
"""Validate a JUnit XML report against the structure of the JUnit schema
(Jenkins/Ant junit-10.xsd, which GitLab and GitHub reporters also read):

  testsuites [name tests failures errors skipped time]
    testsuite+ [name tests failures errors skipped time timestamp hostname]
      properties? > property* [name value]
      testcase* [name classname time]
        (failure [message type] | error [message type] | skipped [message])?
        system-out? system-err?
      system-out? system-err?

Counts must match the testcases, numbers must parse, unknown elements or
attributes are refused.  Usage: junit_check.py FILE [NAME=STATUS ...], where
STATUS is pass|failure|error|skipped; exits 1 with a message on the first
problem."""
import re
import sys
import xml.etree.ElementTree as ET


def die(msg):
    print("junit_check: " + msg)
    sys.exit(1)


def num(el, attr, integer, required=True):
    v = el.get(attr)
    if v is None:
        if required:
            die("<%s> lacks %s" % (el.tag, attr))
        return None
    try:
        x = int(v) if integer else float(v)
    except ValueError:
        die("<%s %s=%r> is not a number" % (el.tag, attr, v))
    if x < 0:
        die("<%s %s=%r> is negative" % (el.tag, attr, v))
    return x


def only(el, attrs, children):
    for a in el.attrib:
        if a not in attrs:
            die("<%s> has unknown attribute %s" % (el.tag, a))
    for c in el:
        if c.tag not in children:
            die("<%s> has unknown child <%s>" % (el.tag, c.tag))


SUITE_ATTRS = {"name", "tests", "failures", "errors", "skipped", "time", "timestamp", "hostname", "id", "package", "disabled"}


def main():
    if len(sys.argv) < 2:
        die("usage: junit_check.py FILE [NAME=STATUS ...]")
    try:
        root = ET.parse(sys.argv[1]).getroot()
    except ET.ParseError as e:
        die("not well-formed XML: %s" % e)
    if root.tag != "testsuites":
        die("root element is <%s>, not <testsuites>" % root.tag)
    only(root, SUITE_ATTRS, {"testsuite"})
    suites = list(root)
    if not suites:
        die("no <testsuite>")
    status = {}
    tot = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for s in suites:
        only(s, SUITE_ATTRS, {"properties", "testcase", "system-out", "system-err"})
        if not s.get("name"):
            die("<testsuite> lacks a name")
        # junit-10.xsd: timestamp is an ISO 8601 date-time without a zone; a host name
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}", s.get("timestamp") or ""):
            die("<testsuite> timestamp %r is not YYYY-MM-DDTHH:MM:SS" % s.get("timestamp"))
        if not s.get("hostname"):
            die("<testsuite> lacks a hostname")
        props = s.findall("properties")
        if len(props) > 1:
            die("more than one <properties>")
        for p in props:
            only(p, set(), {"property"})
            for q in p:
                only(q, {"name", "value"}, set())
                if q.get("name") is None or q.get("value") is None:
                    die("<property> needs name and value")
        cnt = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for tc in s.findall("testcase"):
            only(tc, {"name", "classname", "time", "file", "line", "assertions"}, {"failure", "error", "skipped", "system-out", "system-err"})
            if not tc.get("name") or not tc.get("classname"):
                die("<testcase> needs name and classname")
            num(tc, "time", False, required=False)
            kinds = [c for c in tc if c.tag in ("failure", "error", "skipped")]
            if len(kinds) > 1:
                die("testcase %r has more than one of failure/error/skipped" % tc.get("name"))
            for c in kinds:
                only(c, {"message", "type"}, set())
                if c.tag != "skipped" and (c.get("message") is None or c.get("type") is None):
                    die("<%s> in %r needs message and type" % (c.tag, tc.get("name")))
            st = kinds[0].tag if kinds else "pass"
            if tc.get("name") in status:
                die("testcase name %r repeated" % tc.get("name"))
            status[tc.get("name")] = st
            cnt["tests"] += 1
            if st == "failure":
                cnt["failures"] += 1
            elif st == "error":
                cnt["errors"] += 1
            elif st == "skipped":
                cnt["skipped"] += 1
        for k in cnt:
            want = num(s, k, True, required=(k == "tests"))
            if want is not None and want != cnt[k]:
                die("testsuite %s=%d but it has %d" % (k, want, cnt[k]))
            tot[k] += cnt[k]
        num(s, "time", False, required=False)
    for k in tot:
        want = num(root, k, True, required=False)
        if want is not None and want != tot[k]:
            die("testsuites %s=%d but the suites have %d" % (k, want, tot[k]))
    for arg in sys.argv[2:]:
        name, _, want = arg.rpartition("=")
        if status.get(name) != want:
            die("testcase %r is %s, expected %s" % (name, status.get(name), want))
    print("junit_check: %d testcases OK" % tot["tests"])


main()
