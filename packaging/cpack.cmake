# The Debian package (CPack's DEB generator): tools/package builds it from the `package`
# preset. The binary is stripped; its debug symbols go to a -dbgsym package beside it. The
# maintainer scripts (debian/) create the service account and the state directory, back up
# and migrate the journal on an upgrade, and say what purge deletes.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tuneplane-slurm)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "tuneplane-slurm maintainers")
set(CPACK_PACKAGE_CONTACT "tuneplane-slurm maintainers <maintainers@tuneplane.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "TunePlane's backend for Slurm, beside slurmrestd")
set(CPACK_PACKAGE_DESCRIPTION "tuneplane-slurm turns the TunePlane platform's launch requests into Slurm
batch jobs (Enroot/Pyxis or Apptainer containers, one heterogeneous-job
component per GPU pool), submits them through slurmrestd's REST API with a
JWT, journals every attempt in SQLite and follows each job to its end, so
that no job is ever submitted twice nor lost across restarts and outages.")
# CPackDeb strips the binary itself when it splits the debug symbols out (CPACK_STRIP_FILES
# would strip them first, leaving nothing for the -dbgsym package).
set(CPACK_STRIP_FILES OFF)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "slurm-client")
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# The package owns only its own directories, not /etc, /usr, /lib...
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_CURRENT_LIST_DIR}/debian/conffiles ${CMAKE_CURRENT_LIST_DIR}/debian/postinst
    ${CMAKE_CURRENT_LIST_DIR}/debian/prerm ${CMAKE_CURRENT_LIST_DIR}/debian/postrm)
set(CPACK_PACKAGE_FILE_NAME "tuneplane-slurm_${PROJECT_VERSION}_amd64")
set(CPACK_OUTPUT_FILE_PREFIX ${PROJECT_BINARY_DIR}/dist)
include(CPack)
