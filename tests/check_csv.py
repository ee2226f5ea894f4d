"""Every CSV file given parses as CSV with every row as wide as its header (fields holding a comma
must be quoted). Exit 1 with the file and rows otherwise. Usage: python3 tests/check_csv.py FILE..."""
import csv
import sys

bad = 0
for path in sys.argv[1:]:
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    wrong = [i + 1 for i, row in enumerate(rows) if len(row) != len(rows[0])]
    if wrong:
        print("%s: rows %s do not have the header's %d fields (quote fields that hold a comma)"
              % (path, wrong[:5], len(rows[0])))
        bad = 1
sys.exit(bad)
