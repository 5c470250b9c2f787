"""Which file the binding loads on each platform, tested here on Linux: on Windows it is
bin/mjbridge.dll of an installed tree (no Windows Python runs here; only the lookup is tested)."""

import os

from mjbridge import _native


def test_windows_loads_mjbridge_dll_from_a_trees_bin_folder(tmp_path, monkeypatch):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "mjbridge.dll").write_bytes(b"")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libmjbridge.so.0").write_bytes(b"")
    monkeypatch.delenv("MJBRIDGE_LIB", raising=False)
    monkeypatch.setenv("MJBRIDGE_PREFIX", str(tmp_path))
    assert _native.library_names("win32") == ("mjbridge.dll",)
    found = dict(_native.candidates(platform="win32"))
    assert found["MJBRIDGE_PREFIX"] == os.path.join(str(tmp_path), "bin", "mjbridge.dll")
    assert _native.candidates(platform="win32")[-1] == ("system loader", "mjbridge.dll")


def test_linux_loads_the_soname_from_a_trees_lib_folder(tmp_path, monkeypatch):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "mjbridge.dll").write_bytes(b"")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libmjbridge.so.0").write_bytes(b"")
    monkeypatch.delenv("MJBRIDGE_LIB", raising=False)
    monkeypatch.setenv("MJBRIDGE_PREFIX", str(tmp_path))
    found = dict(_native.candidates(platform="linux"))
    assert found["MJBRIDGE_PREFIX"] == os.path.join(str(tmp_path), "lib", "libmjbridge.so.0")
    assert _native.candidates(platform="linux")[-1] == ("system loader", "libmjbridge.so.0")


def test_an_explicit_dll_folder_is_searched_for_mjbridge_dll(tmp_path, monkeypatch):
    (tmp_path / "mjbridge.dll").write_bytes(b"")
    monkeypatch.setenv("MJBRIDGE_LIB", str(tmp_path))
    assert _native.candidates(platform="win32")[0] == (
        "MJBRIDGE_LIB",
        os.path.join(str(tmp_path), "mjbridge.dll"),
    )


def test_windows_adds_a_dlls_folder_to_the_search_path_before_loading(tmp_path, monkeypatch):
    # mujoco.dll beside mjbridge.dll: the folder joins the DLL search path (os.add_dll_directory,
    # which exists on Windows only, recorded here); a bare name (the system loader) adds nothing,
    # and nothing is added on Linux.
    added = []
    monkeypatch.setattr(os, "add_dll_directory", added.append, raising=False)
    monkeypatch.setattr(_native, "_dll_directories", [])
    dll = str(tmp_path / "_lib" / "mjbridge.dll")
    _native._add_dll_directory(dll, platform="win32")
    assert added == [str(tmp_path / "_lib")]
    _native._add_dll_directory("mjbridge.dll", platform="win32")
    _native._add_dll_directory(dll, platform="linux")
    assert added == [str(tmp_path / "_lib")]
    assert len(_native._dll_directories) == 1
