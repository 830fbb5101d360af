from engine.files.digest import file_digest, sha256_hex

ABC_SHA256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"  # FIPS 180-2's example


def test_the_digest_is_sha256_of_the_file_and_a_missing_file_reports_none(tmp_path):
    path = tmp_path / "model.onnx"
    path.write_bytes(b"abc")
    assert sha256_hex(path) == ABC_SHA256
    assert file_digest(path) == ABC_SHA256[:16]
    assert file_digest(tmp_path / "absent.onnx") is None
