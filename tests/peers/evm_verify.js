// Compile a Groth16 verifier contract with solc (npm solc) and call its
// verifyProof in an in-process EVM (npm @ethereumjs/vm), no network:
//   node evm_verify.js VERIFIER.sol CALLDATA...
// Each CALLDATA file holds the text `zkey export soliditycalldata` prints
// (pA, pB, pC, pubSignals).  Prints one line per file: "true" or "false"
// (the call's return value), or "revert" when the call did not return;
// exits 2 when the contract does not compile or deploy.
'use strict';
const fs = require('fs');
const solc = require('solc');
const { createVM } = require('@ethereumjs/vm');
const { Address, hexToBytes, bytesToHex } = require('@ethereumjs/util');

function compile(path) {
    const input = {
        language: 'Solidity',
        sources: { 'verifier.sol': { content: fs.readFileSync(path, 'utf8') } },
        settings: { outputSelection: { '*': { '*': ['evm.bytecode.object', 'evm.methodIdentifiers'] } } },
    };
    const out = JSON.parse(solc.compile(JSON.stringify(input)));
    const errors = (out.errors || []).filter((e) => e.severity === 'error');
    if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
    const c = out.contracts['verifier.sol'].Groth16Verifier;
    const sig = Object.keys(c.evm.methodIdentifiers).find((k) => k.startsWith('verifyProof('));
    return { code: c.evm.bytecode.object, selector: c.evm.methodIdentifiers[sig] };
}

// The calldata text is four JSON arrays separated by commas.
function encode(selector, text) {
    const [a, b, c, pub] = JSON.parse('[' + text.trim() + ']');
    const words = [...a, ...b[0], ...b[1], ...c, ...pub];
    return selector + words.map((w) => BigInt(w).toString(16).padStart(64, '0')).join('');
}

async function main() {
    const [sol, ...calls] = process.argv.slice(2);
    let built;
    try {
        built = compile(sol);
    } catch (e) {
        console.error('evm_verify: ' + e.message);
        process.exit(2);
    }
    const vm = await createVM();
    const caller = new Address(hexToBytes('0x' + '11'.repeat(20)));
    const dep = await vm.evm.runCall({ caller, data: hexToBytes('0x' + built.code), gasLimit: 30000000n });
    if (dep.execResult.exceptionError || !dep.createdAddress) {
        console.error('evm_verify: deployment failed: ' + dep.execResult.exceptionError);
        process.exit(2);
    }
    for (const f of calls) {
        const r = await vm.evm.runCall({
            caller,
            to: dep.createdAddress,
            data: hexToBytes('0x' + encode(built.selector, fs.readFileSync(f, 'utf8'))),
            gasLimit: 30000000n,
        });
        const ret = bytesToHex(r.execResult.returnValue);
        if (r.execResult.exceptionError || ret.length !== 66) console.log('revert');
        else console.log(BigInt(ret) === 1n ? 'true' : 'false');
    }
}
main().catch((e) => {
    console.error('evm_verify: ' + (e && e.message ? e.message : e));
    process.exit(2);
});
