cat <<'EOF' > notes.txt
$(not run)
EOF
cat <<-END
	echo $(whoami)
	END
wc -l notes.txt