/* EIP-197 (alt_bn128 pairing precompile) test vectors, copied from
 * go-ethereum core/vm/testdata/precompiles/bn256Pairing.json
 * (https://github.com/ethereum/go-ethereum, commit 19476a97835bd2f797dc05064e9037f9d8cc8aad),
 * the entries jeff1..jeff6, empty_data, one_point and two_point_match_2..4.
 * ten_point_match_1 and _2 there are five copies of two_point_match_2 and _3,
 * and ten_point_match_3 equals two_point_match_4; tests/unit/test_prover_pairing.c
 * builds the repeated inputs itself.
 *
 * input: hex of 192 bytes per pair, six 32-byte big-endian words
 *   G1 x, G1 y, G2 x imaginary (c1), G2 x real (c0), G2 y imaginary, G2 y real
 * (EIP-197 puts the imaginary part of an Fq2 coordinate first); all zero
 * words encode infinity.  expected: 1 if the product of the pairings is 1. */
#ifndef NNC_TEST_BN256_PAIRING_VECTORS_H
#define NNC_TEST_BN256_PAIRING_VECTORS_H

typedef struct bn256_pairing_vector {
    const char *name;  /* as in the source file */
    int expected;      /* 1: the product is 1, 0: it is not */
    const char *input; /* lowercase hex, 384 characters per pair */
} bn256_pairing_vector;

static const bn256_pairing_vector BN256_PAIRING_VECTORS[] = {
    {"jeff1", 1,
     "1c76476f4def4bb94541d57ebba1193381ffa7aa76ada664dd31c16024c43f59" /* pair 0, G1 x */
     "3034dd2920f673e204fee2811c678745fc819b55d3e9d294e45c9b03a76aef41" /* pair 0, G1 y */
     "209dd15ebff5d46c4bd888e51a93cf99a7329636c63514396b4a452003a35bf7" /* pair 0, G2 x c1 */
     "04bf11ca01483bfa8b34b43561848d28905960114c8ac04049af4b6315a41678" /* pair 0, G2 x c0 */
     "2bb8324af6cfc93537a2ad1a445cfd0ca2a71acd7ac41fadbf933c2a51be344d" /* pair 0, G2 y c1 */
     "120a2a4cf30c1bf9845f20c6fe39e07ea2cce61f0c9bb048165fe5e4de877550" /* pair 0, G2 y c0 */
     "111e129f1cf1097710d41c4ac70fcdfa5ba2023c6ff1cbeac322de49d1b6df7c" /* pair 1, G1 x */
     "2032c61a830e3c17286de9462bf242fca2883585b93870a73853face6a6bf411" /* pair 1, G1 y */
     "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2" /* pair 1, G2 x c1 */
     "1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed" /* pair 1, G2 x c0 */
     "090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b" /* pair 1, G2 y c1 */
     "12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"}, /* pair 1, G2 y c0 */
    {"jeff2", 1,
     "2eca0c7238bf16e83e7a1e6c5d49540685ff51380f309842a98561558019fc02" /* pair 0, G1 x */
     "03d3260361bb8451de5ff5ecd17f010ff22f5c31cdf184e9020b06fa5997db84" /* pair 0, G1 y */
     "1213d2149b006137fcfb23036606f848d638d576a120ca981b5b1a5f9300b3ee" /* pair 0, G2 x c1 */
     "2276cf730cf493cd95d64677bbb75fc42db72513a4c1e387b476d056f80aa75f" /* pair 0, G2 x c0 */
     "21ee6226d31426322afcda621464d0611d226783262e21bb3bc86b537e986237" /* pair 0, G2 y c1 */
     "096df1f82dff337dd5972e32a8ad43e28a78a96a823ef1cd4debe12b6552ea5f" /* pair 0, G2 y c0 */
     "06967a1237ebfeca9aaae0d6d0bab8e28c198c5a339ef8a2407e31cdac516db9" /* pair 1, G1 x */
     "22160fa257a5fd5b280642ff47b65eca77e626cb685c84fa6d3b6882a283ddd1" /* pair 1, G1 y */
     "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2" /* pair 1, G2 x c1 */
     "1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed" /* pair 1, G2 x c0 */
     "090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b" /* pair 1, G2 y c1 */
     "12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"}, /* pair 1, G2 y c0 */
    {"jeff3", 1,
     "0f25929bcb43d5a57391564615c9e70a992b10eafa4db109709649cf48c50dd2" /* pair 0, G1 x */
     "16da2f5cb6be7a0aa72c440c53c9bbdfec6c36c7d515536431b3a865468acbba" /* pair 0, G1 y */
     "2e89718ad33c8bed92e210e81d1853435399a271913a6520736a4729cf0d51eb" /* pair 0, G2 x c1 */
     "01a9e2ffa2e92599b68e44de5bcf354fa2642bd4f26b259daa6f7ce3ed57aeb3" /* pair 0, G2 x c0 */
     "14a9a87b789a58af499b314e13c3d65bede56c07ea2d418d6874857b70763713" /* pair 0, G2 y c1 */
     "178fb49a2d6cd347dc58973ff49613a20757d0fcc22079f9abd10c3baee24590" /* pair 0, G2 y c0 */
     "1b9e027bd5cfc2cb5db82d4dc9677ac795ec500ecd47deee3b5da006d6d049b8" /* pair 1, G1 x */
     "11d7511c78158de484232fc68daf8a45cf217d1c2fae693ff5871e8752d73b21" /* pair 1, G1 y */
     "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2" /* pair 1, G2 x c1 */
     "1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed" /* pair 1, G2 x c0 */
     "090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b" /* pair 1, G2 y c1 */
     "12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"}, /* pair 1, G2 y c0 */
    {"jeff4", 1,
     "2f2ea0b3da1e8ef11914acf8b2e1b32d99df51f5f4f206fc6b947eae860eddb6" /* pair 0, G1 x */
     "068134ddb33dc888ef446b648d72338684d678d2eb2371c61a50734d78da4b72" /* pair 0, G1 y */
     "25f83c8b6ab9de74e7da488ef02645c5a16a6652c3c71a15dc37fe3a5dcb7cb1" /* pair 0, G2 x c1 */
     "22acdedd6308e3bb230d226d16a105295f523a8a02bfc5e8bd2da135ac4c245d" /* pair 0, G2 x c0 */
     "065bbad92e7c4e31bf3757f1fe7362a63fbfee50e7dc68da116e67d600d9bf68" /* pair 0, G2 y c1 */
     "06d302580dc0661002994e7cd3a7f224e7ddc27802777486bf80f40e4ca3cfdb" /* pair 0, G2 y c0 */
     "186bac5188a98c45e6016873d107f5cd131f3a3e339d0375e58bd6219347b008" /* pair 1, G1 x */
     "122ae2b09e539e152ec5364e7e2204b03d11d3caa038bfc7cd499f8176aacbee" /* pair 1, G1 y */
     "1f39e4e4afc4bc74790a4a028aff2c3d2538731fb755edefd8cb48d6ea589b5e" /* pair 1, G2 x c1 */
     "283f150794b6736f670d6a1033f9b46c6f5204f50813eb85c8dc4b59db1c5d39" /* pair 1, G2 x c0 */
     "140d97ee4d2b36d99bc49974d18ecca3e7ad51011956051b464d9e27d46cc25e" /* pair 1, G2 y c1 */
     "0764bb98575bd466d32db7b15f582b2d5c452b36aa394b789366e5e3ca5aabd4" /* pair 1, G2 y c0 */
     "15794ab061441e51d01e94640b7e3084a07e02c78cf3103c542bc5b298669f21" /* pair 2, G1 x */
     "1b88da1679b0b64a63b7e0e7bfe52aae524f73a55be7fe70c7e9bfc94b4cf0da" /* pair 2, G1 y */
     "1213d2149b006137fcfb23036606f848d638d576a120ca981b5b1a5f9300b3ee" /* pair 2, G2 x c1 */
     "2276cf730cf493cd95d64677bbb75fc42db72513a4c1e387b476d056f80aa75f" /* pair 2, G2 x c0 */
     "21ee6226d31426322afcda621464d0611d226783262e21bb3bc86b537e986237" /* pair 2, G2 y c1 */
     "096df1f82dff337dd5972e32a8ad43e28a78a96a823ef1cd4debe12b6552ea5f"}, /* pair 2, G2 y c0 */
    {"jeff5", 1,
     "20a754d2071d4d53903e3b31a7e98ad6882d58aec240ef981fdf0a9d22c5926a" /* pair 0, G1 x */
     "29c853fcea789887315916bbeb89ca37edb355b4f980c9a12a94f30deeed3021" /* pair 0, G1 y */
     "1213d2149b006137fcfb23036606f848d638d576a120ca981b5b1a5f9300b3ee" /* pair 0, G2 x c1 */
     "2276cf730cf493cd95d64677bbb75fc42db72513a4c1e387b476d056f80aa75f" /* pair 0, G2 x c0 */
     "21ee6226d31426322afcda621464d0611d226783262e21bb3bc86b537e986237" /* pair 0, G2 y c1 */
     "096df1f82dff337dd5972e32a8ad43e28a78a96a823ef1cd4debe12b6552ea5f" /* pair 0, G2 y c0 */
     "1abb4a25eb9379ae96c84fff9f0540abcfc0a0d11aeda02d4f37e4baf74cb0c1" /* pair 1, G1 x */
     "1073b3ff2cdbb38755f8691ea59e9606696b3ff278acfc098fa8226470d03869" /* pair 1, G1 y */
     "217cee0a9ad79a4493b5253e2e4e3a39fc2df38419f230d341f60cb064a0ac29" /* pair 1, G2 x c1 */
     "0a3d76f140db8418ba512272381446eb73958670f00cf46f1d9e64cba057b53c" /* pair 1, G2 x c0 */
     "26f64a8ec70387a13e41430ed3ee4a7db2059cc5fc13c067194bcc0cb49a9855" /* pair 1, G2 y c1 */
     "2fd72bd9edb657346127da132e5b82ab908f5816c826acb499e22f2412d1a2d7" /* pair 1, G2 y c0 */
     "0f25929bcb43d5a57391564615c9e70a992b10eafa4db109709649cf48c50dd2" /* pair 2, G1 x */
     "198a1f162a73261f112401aa2db79c7dab1533c9935c77290a6ce3b191f2318d" /* pair 2, G1 y */
     "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2" /* pair 2, G2 x c1 */
     "1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed" /* pair 2, G2 x c0 */
     "090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b" /* pair 2, G2 y c1 */
     "12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"}, /* pair 2, G2 y c0 */
    {"jeff6", 0,
     "1c76476f4def4bb94541d57ebba1193381ffa7aa76ada664dd31c16024c43f59" /* pair 0, G1 x */
     "3034dd2920f673e204fee2811c678745fc819b55d3e9d294e45c9b03a76aef41" /* pair 0, G1 y */
     "209dd15ebff5d46c4bd888e51a93cf99a7329636c63514396b4a452003a35bf7" /* pair 0, G2 x c1 */
     "04bf11ca01483bfa8b34b43561848d28905960114c8ac04049af4b6315a41678" /* pair 0, G2 x c0 */
     "2bb8324af6cfc93537a2ad1a445cfd0ca2a71acd7ac41fadbf933c2a51be344d" /* pair 0, G2 y c1 */
     "120a2a4cf30c1bf9845f20c6fe39e07ea2cce61f0c9bb048165fe5e4de877550" /* pair 0, G2 y c0 */
     "111e129f1cf1097710d41c4ac70fcdfa5ba2023c6ff1cbeac322de49d1b6df7c" /* pair 1, G1 x */
     "103188585e2364128fe25c70558f1560f4f9350baf3959e603cc91486e110936" /* pair 1, G1 y */
     "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2" /* pair 1, G2 x c1 */
     "1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed" /* pair 1, G2 x c0 */
     "090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b" /* pair 1, G2 y c1 */
     "12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"}, /* pair 1, G2 y c0 */
    {"empty_data", 1,
     ""},
    {"one_point", 0,
     "0000000000000000000000000000000000000000000000000000000000000001" /* pair 0, G1 x */
     "0000000000000000000000000000000000000000000000000000000000000002" /* pair 0, G1 y */
     "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2" /* pair 0, G2 x c1 */
     "1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed" /* pair 0, G2 x c0 */
     "090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b" /* pair 0, G2 y c1 */
     "12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"}, /* pair 0, G2 y c0 */
    {"two_point_match_2", 1,
     "0000000000000000000000000000000000000000000000000000000000000001" /* pair 0, G1 x */
     "0000000000000000000000000000000000000000000000000000000000000002" /* pair 0, G1 y */
     "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2" /* pair 0, G2 x c1 */
     "1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed" /* pair 0, G2 x c0 */
     "090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b" /* pair 0, G2 y c1 */
     "12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa" /* pair 0, G2 y c0 */
     "0000000000000000000000000000000000000000000000000000000000000001" /* pair 1, G1 x */
     "0000000000000000000000000000000000000000000000000000000000000002" /* pair 1, G1 y */
     "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2" /* pair 1, G2 x c1 */
     "1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed" /* pair 1, G2 x c0 */
     "275dc4a288d1afb3cbb1ac09187524c7db36395df7be3b99e673b13a075a65ec" /* pair 1, G2 y c1 */
     "1d9befcd05a5323e6da4d435f3b617cdb3af83285c2df711ef39c01571827f9d"}, /* pair 1, G2 y c0 */
    {"two_point_match_3", 1,
     "0000000000000000000000000000000000000000000000000000000000000001" /* pair 0, G1 x */
     "0000000000000000000000000000000000000000000000000000000000000002" /* pair 0, G1 y */
     "203e205db4f19b37b60121b83a7333706db86431c6d835849957ed8c3928ad79" /* pair 0, G2 x c1 */
     "27dc7234fd11d3e8c36c59277c3e6f149d5cd3cfa9a62aee49f8130962b4b3b9" /* pair 0, G2 x c0 */
     "195e8aa5b7827463722b8c153931579d3505566b4edf48d498e185f0509de152" /* pair 0, G2 y c1 */
     "04bb53b8977e5f92a0bc372742c4830944a59b4fe6b1c0466e2a6dad122b5d2e" /* pair 0, G2 y c0 */
     "030644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd3" /* pair 1, G1 x */
     "1a76dae6d3272396d0cbe61fced2bc532edac647851e3ac53ce1cc9c7e645a83" /* pair 1, G1 y */
     "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2" /* pair 1, G2 x c1 */
     "1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed" /* pair 1, G2 x c0 */
     "090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b" /* pair 1, G2 y c1 */
     "12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"}, /* pair 1, G2 y c0 */
    {"two_point_match_4", 1,
     "105456a333e6d636854f987ea7bb713dfd0ae8371a72aea313ae0c32c0bf1016" /* pair 0, G1 x */
     "0cf031d41b41557f3e7e3ba0c51bebe5da8e6ecd855ec50fc87efcdeac168bcc" /* pair 0, G1 y */
     "0476be093a6d2b4bbf907172049874af11e1b6267606e00804d3ff0037ec57fd" /* pair 0, G2 x c1 */
     "3010c68cb50161b7d1d96bb71edfec9880171954e56871abf3d93cc94d745fa1" /* pair 0, G2 x c0 */
     "14c059d74e5b6c4ec14ae5864ebe23a71781d86c29fb8fb6cce94f70d3de7a21" /* pair 0, G2 y c1 */
     "01b33461f39d9e887dbb100f170a2345dde3c07e256d1dfa2b657ba5cd030427" /* pair 0, G2 y c0 */
     "0000000000000000000000000000000000000000000000000000000000000001" /* pair 1, G1 x */
     "0000000000000000000000000000000000000000000000000000000000000002" /* pair 1, G1 y */
     "1a2c3013d2ea92e13c800cde68ef56a294b883f6ac35d25f587c09b1b3c635f7" /* pair 1, G2 x c1 */
     "290158a80cd3d66530f74dc94c94adb88f5cdb481acca997b6e60071f08a115f" /* pair 1, G2 x c0 */
     "2f997f3dbd66a7afe07fe7862ce239edba9e05c5afff7f8a1259c9733b2dfbb9" /* pair 1, G2 y c1 */
     "29d1691530ca701b4a106054688728c9972c8512e9789e9567aae23e302ccd75"}, /* pair 1, G2 y c0 */
};

#endif
