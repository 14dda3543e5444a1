# gen.py: write the cases of Ryu switch test files (arguments) as hex bytes;
# see README.md.
import json, sys, glob
from os_ken.tests.switch import tester
from os_ken.ofproto import ofproto_v1_3
tester.OfTester.target_ver = ofproto_v1_3.OFP_VERSION
tester.OfTester.tester_ver = ofproto_v1_3.OFP_VERSION
out = []
for f in sys.argv[1:]:
    cases = json.load(open(f))
    name = cases[0]
    for c in cases[1:]:
        t = tester.Test(c)
        flows = [bytes(m.buf).hex() for m in t.prerequisite]
        tests = []
        for p in t.tests:
            d = {"ingress": p["ingress"].hex()}
            if "egress" in p:
                d["egress"] = p["egress"].hex()
            elif "PACKET_IN" in p:
                d["packet_in"] = p["PACKET_IN"].hex()
            elif "table-miss" in p:
                d["table_miss"] = p["table-miss"]
            tests.append(d)
        out.append({"file": f.split("ryu-of13/")[1], "description": t.description, "flows": flows, "tests": tests})
json.dump(out, sys.stdout, indent=1)
